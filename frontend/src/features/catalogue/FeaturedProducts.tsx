import { useEffect, useState } from 'react'
import { Link } from 'react-router-dom'
import { Button } from '@/components/ui/button'
import { readRows, type Row } from '@/lib/rest'
import { ProductCard } from './ProductCard'

/** The products the shop marks Featured (the admin's switch), on the home page: read with a plain
 * fetch of the REST API (lib/rest.ts), so the first page a visitor sees loads neither supabase-js
 * nor the query cache. Nothing shows until they arrive, or when the read fails (logged). */
export default function FeaturedProducts() {
  const [products, setProducts] = useState<Row<'products'>[]>([])
  useEffect(() => {
    const ask = new AbortController()
    readRows(
      'products',
      { select: '*', is_available: 'eq.true', is_featured: 'eq.true', order: 'name', limit: 8 },
      ask.signal,
    )
      .then(setProducts)
      .catch((e: unknown) => {
        if (!ask.signal.aborted) console.error('Error fetching products:', e)
      })
    return () => ask.abort()
  }, [])
  if (products.length === 0) return null
  return (
    <section aria-labelledby="featured-heading" className="mx-auto max-w-7xl px-4 py-14">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <h2 id="featured-heading" className="font-display text-4xl font-semibold">
          Featured Flowers
        </h2>
        <Button asChild variant="outline">
          <Link to="/flowers">See all flowers</Link>
        </Button>
      </div>
      <div className="mt-8 grid grid-cols-1 gap-6 sm:grid-cols-2 lg:grid-cols-4">
        {products.map((p) => (
          <ProductCard key={p.id} product={p} />
        ))}
      </div>
    </section>
  )
}
