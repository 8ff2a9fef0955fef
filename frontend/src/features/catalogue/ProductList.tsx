import { Link } from 'react-router-dom'
import { Button } from '@/components/ui/button'
import { imageUrl } from '@/lib/images'
import { formatPrice } from '@/lib/utils'
import type { Product } from './api'
import { useProductsForSlug } from './queries'

export function ProductCard({ product, headingLevel = 3 }: { product: Product; headingLevel?: 2 | 3 }) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3'
  const src = imageUrl('product-images', product.main_image_url)
  return (
    <article className="group flex flex-col overflow-hidden rounded-lg border bg-card shadow-sm transition-shadow hover:shadow-md">
      <div className="aspect-square overflow-hidden bg-cream-200">
        {src ? (
          <img
            src={src}
            alt={product.name}
            loading="lazy"
            width={400}
            height={400}
            className="h-full w-full object-cover transition-transform duration-500 group-hover:scale-105"
          />
        ) : (
          <div className="flex h-full items-center justify-center text-sm font-semibold uppercase tracking-wider text-muted-foreground">
            No Image
          </div>
        )}
      </div>
      <div className="flex flex-1 flex-col gap-2 p-4">
        <Heading className="font-display text-xl font-semibold leading-snug">{product.name}</Heading>
        <p className="line-clamp-2 text-sm text-muted-foreground">{product.description}</p>
        <p className="mt-auto text-lg font-bold text-rose-700">{formatPrice(product.base_price)}</p>
        <Button asChild variant="outline" className="w-full">
          <Link to={`/product/${product.id}`} aria-label={`View Details of ${product.name}`}>
            View Details
          </Link>
        </Button>
      </div>
    </article>
  )
}

/** While products load: cards of the same size as the real ones (a screenful at least), so the
 * grid and the footer do not jump when the products arrive. */
export function ProductGridSkeleton({ count = 8 }: { count?: number }) {
  return (
    <div role="status" className="min-h-[100svh]">
      <span className="sr-only">Loading products...</span>
      <div className="grid grid-cols-1 gap-6 sm:grid-cols-2 lg:grid-cols-4" aria-hidden="true">
        {Array.from({ length: count }, (_, i) => (
          <div key={i} className="flex flex-col overflow-hidden rounded-lg border bg-card shadow-sm">
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
    return <p className="py-12 text-center text-muted-foreground">No products available at this time.</p>
  }
  return (
    <div className="grid grid-cols-1 gap-6 sm:grid-cols-2 lg:grid-cols-4" data-testid="product-grid">
      {products.map((p) => (
        <ProductCard key={p.id} product={p} headingLevel={2} />
      ))}
    </div>
  )
}
