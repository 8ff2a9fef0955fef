import { Link } from 'react-router-dom'
import { Button } from '@/components/ui/button'
import { imageUrl } from '@/lib/imageUrl'
import { formatPrice } from '@/lib/price'
import type { Product } from './api'

/** One product in a grid (the home page's featured products, the lists): its own module, so the
 * home page loads it without supabase-js or the query cache. */
export function ProductCard({
  product,
  headingLevel = 3,
}: {
  product: Product
  headingLevel?: 2 | 3
}) {
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
        <Heading className="font-display text-xl font-semibold leading-snug">
          {product.name}
        </Heading>
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
