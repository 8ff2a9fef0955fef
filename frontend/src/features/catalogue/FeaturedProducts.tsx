import { Link } from 'react-router-dom'
import { useQuery } from '@tanstack/react-query'
import { Button } from '@/components/ui/button'
import { supabase } from '@/lib/supabase'
import { ProductCard } from './ProductList'

/** The products the shop marks Featured (the admin's switch), on the home page. */
export default function FeaturedProducts() {
  const { data } = useQuery({
    queryKey: ['catalogue', 'featured'],
    queryFn: async () => {
      const { data, error } = await supabase.from('products').select('*').eq('is_available', true).eq('is_featured', true).order('name').limit(8)
      if (error) {
        console.error('Error fetching products:', error)
        return []
      }
      return data
    },
  })
  if (!data || data.length === 0) return null
  return (
    <section aria-labelledby="featured-heading" className="mx-auto max-w-7xl px-4 py-14">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <h2 id="featured-heading" className="font-display text-4xl font-semibold">Featured Flowers</h2>
        <Button asChild variant="outline"><Link to="/flowers">See all flowers</Link></Button>
      </div>
      <div className="mt-8 grid grid-cols-1 gap-6 sm:grid-cols-2 lg:grid-cols-4">
        {data.map((p) => (
          <ProductCard key={p.id} product={p} />
        ))}
      </div>
    </section>
  )
}
