import { ProductCard } from './ProductCard'
import { useProductsForSlug } from './queries'

export { ProductCard }

/** While products load: cards of the same size as the real ones (a screenful at least), so the
 * grid and the footer do not jump when the products arrive. */
export function ProductGridSkeleton({ count = 8 }: { count?: number }) {
  return (
    <div role="status" className="min-h-[100svh]">
      <span className="sr-only">Loading products...</span>
      <div className="grid grid-cols-1 gap-6 sm:grid-cols-2 lg:grid-cols-4" aria-hidden="true">
        {Array.from({ length: count }, (_, i) => (
          <div
            // biome-ignore lint/suspicious/noArrayIndexKey: placeholders with nothing but their place
            key={i}
            className="flex flex-col overflow-hidden rounded-lg border bg-card shadow-sm"
          >
            <div className="aspect-square animate-pulse bg-cream-200" />
            <div className="flex flex-col gap-2 p-4">
              <div className="h-7 w-3/4 rounded bg-cream-200" />
              <div className="h-10 rounded bg-cream-100" />
              <div className="h-7 w-1/4 rounded bg-cream-200" />
              <div className="h-10 rounded-md border" />
            </div>
          </div>
        ))}
      </div>
    </div>
  )
}

/** Products of a category slug (or all available ones), reloaded when the slug changes. Each
 * card's name is a heading right under the page's h1. */
export function ProductList({ categorySlug }: { categorySlug?: string }) {
  const { data: products, isPending } = useProductsForSlug(categorySlug)
  if (isPending) return <ProductGridSkeleton />
  if (!products || products.length === 0) {
    return (
      <p className="py-12 text-center text-muted-foreground">No products available at this time.</p>
    )
  }
  return (
    <div
      className="grid grid-cols-1 gap-6 sm:grid-cols-2 lg:grid-cols-4"
      data-testid="product-grid"
    >
      {products.map((p) => (
        <ProductCard key={p.id} product={p} headingLevel={2} />
      ))}
    </div>
  )
}
