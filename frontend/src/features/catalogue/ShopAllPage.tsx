import * as React from 'react'
import { Link, useSearchParams } from 'react-router-dom'
import { Search } from 'lucide-react'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { PageHero, Section } from '@/site/layout/PageHero'
import { site } from '@/config/site'
import { usePageMeta } from '@/lib/usePageMeta'
import type { Product } from './api'
import { ProductCard, ProductGridSkeleton } from './ProductList'
import { useProductsForSlug } from './queries'

/** Whether every word typed is in the product's name or description (accents and case aside). */
export function matchesSearch(p: Pick<Product, 'name' | 'description'>, query: string): boolean {
  const fold = (s: string) =>
    s
      .normalize('NFD')
      .replace(/\p{Diacritic}/gu, '')
      .toLowerCase()
  const text = fold(`${p.name} ${p.description ?? ''}`)
  return fold(query)
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => text.includes(w))
}

/** Every available product, with a search over their names and descriptions (?q=). */
export default function ShopAllPage() {
  usePageMeta(
    'All Flowers & Gifts',
    `Every bouquet, plant and gift ${site.name} has today, with a search.`,
  )
  const [params, setParams] = useSearchParams()
  const query = params.get('q') ?? ''
  const { data: products, isPending } = useProductsForSlug(undefined)
  const found = React.useMemo(
    () => (products ?? []).filter((p) => matchesSearch(p, query)),
    [products, query],
  )
  return (
    <>
      <PageHero
        title="All Flowers & Gifts"
        subtitle="Everything we have today. Looking for something else? Build your own bouquet or call us."
      />
      <Section className="max-w-7xl space-y-6">
        <form role="search" onSubmit={(e) => e.preventDefault()} className="max-w-md space-y-2">
          <Label htmlFor="product-search">Search flowers</Label>
          <div className="relative">
            <Search
              className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground"
              aria-hidden="true"
            />
            <Input
              id="product-search"
              type="search"
              className="pl-9"
              placeholder="Roses, orchid, sunflowers…"
              value={query}
              onChange={(e) =>
                setParams(e.target.value ? { q: e.target.value } : {}, { replace: true })
              }
            />
          </div>
        </form>
        {isPending ? (
          <>
            <p className="text-sm text-muted-foreground" aria-hidden="true">
              &nbsp;
            </p>
            <ProductGridSkeleton />
          </>
        ) : (
          <>
            <p className="text-sm text-muted-foreground" role="status" aria-live="polite">
              {query
                ? `${found.length} of ${products?.length ?? 0} products match “${query}”`
                : `${found.length} products`}
            </p>
            {found.length === 0 ? (
              <p className="py-8 text-center text-muted-foreground">
                {query ? (
                  <>
                    Nothing matches “{query}”. Try another word,{' '}
                    <Link className="font-semibold text-rose-700 underline" to="/build-bouquet">
                      build your own bouquet
                    </Link>{' '}
                    or call us on{' '}
                    <a className="font-semibold text-rose-700 underline" href={site.phoneHref}>
                      {site.phone}
                    </a>
                    .
                  </>
                ) : (
                  'No products available at this time.'
                )}
              </p>
            ) : (
              <div
                className="grid grid-cols-1 gap-6 sm:grid-cols-2 lg:grid-cols-4"
                data-testid="product-grid"
              >
                {found.map((p) => (
                  <ProductCard key={p.id} product={p} headingLevel={2} />
                ))}
              </div>
            )}
          </>
        )}
      </Section>
    </>
  )
}
