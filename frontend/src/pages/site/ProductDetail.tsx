import * as React from 'react'
import { Navigate, useNavigate, useParams } from 'react-router-dom'
import { ArrowLeft } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Section } from '@/components/site/PageHero'
import { fetchProductDetail, type ProductDetail as Detail } from '@/lib/products'
import { loadStoreScript, productBrowserSettings, waitForProductBrowser } from '@/lib/storeWidget'
import { formatPrice } from '@/lib/utils'
import { usePageMeta } from '@/lib/usePageMeta'
import { site } from '@/config/site'

function StoreWidget({ productId, slug }: { productId: string; slug: string | null }) {
  const containerId = `my-store-${site.storeId}`
  const [state, setState] = React.useState<'loading' | 'ready' | 'unavailable'>('loading')
  React.useEffect(() => {
    const abort = new AbortController()
    loadStoreScript()
      .then(() => waitForProductBrowser(abort.signal))
      .then((browser) => {
        if (abort.signal.aborted) return
        browser(...productBrowserSettings(containerId, productId, slug))
        setState('ready')
      })
      .catch((e: Error) => {
        if (abort.signal.aborted) return
        console.warn('Store widget unavailable:', e.message)
        setState('unavailable')
      })
    return () => abort.abort()
  }, [containerId, productId, slug])
  return (
    <div className="mt-8">
      {state === 'loading' && <p className="text-muted-foreground" role="status">Loading the shop checkout…</p>}
      {state === 'unavailable' && (
        <p className="rounded-md border border-gold-400 bg-cream-200 p-4 text-ink-700" role="status">
          The online checkout is unavailable right now. Please call us on{' '}
          <a href={site.phoneHref} className="font-semibold text-rose-700">{site.phone}</a> to order this product.
        </p>
      )}
      <div id={containerId} data-testid="store-widget" />
    </div>
  )
}

export default function ProductDetail() {
  const { id = '' } = useParams()
  const navigate = useNavigate()
  const [product, setProduct] = React.useState<Detail | null>(null)
  const [status, setStatus] = React.useState<'loading' | 'found' | 'missing' | 'error'>('loading')
  usePageMeta(product?.name ?? 'Product', product?.description ?? 'Product details')

  React.useEffect(() => {
    let cancelled = false
    setStatus('loading')
    fetchProductDetail(id).then(({ product, error }) => {
      if (cancelled) return
      if (error) {
        console.error('Error fetching product:', error)
        setStatus('error')
      } else if (!product) {
        setStatus('missing')
      } else {
        setProduct(product)
        setStatus('found')
      }
    })
    return () => {
      cancelled = true
    }
  }, [id])

  if (status === 'missing') return <Navigate to="/not-found" replace />
  if (status === 'error') return null
  if (status === 'loading' || !product) {
    return <p className="py-24 text-center text-muted-foreground" role="status">Loading…</p>
  }
  return (
    <Section className="max-w-5xl">
      <Button variant="ghost" onClick={() => navigate(-1)} className="mb-6">
        <ArrowLeft aria-hidden="true" />
        Back
      </Button>
      <div className="grid gap-8 md:grid-cols-2">
        <div className="aspect-square overflow-hidden rounded-lg border bg-cream-200">
          {product.main_image_url ? (
            <img src={product.main_image_url} alt={product.name} className="h-full w-full object-cover" width={600} height={600} />
          ) : (
            <div className="flex h-full items-center justify-center font-semibold uppercase tracking-wider text-muted-foreground">No Image</div>
          )}
        </div>
        <div>
          <h1 className="font-display text-4xl font-bold">{product.name}</h1>
          <p className="mt-2 text-2xl font-bold text-rose-700">{formatPrice(product.base_price)}</p>
          <p className="mt-4 leading-relaxed text-ink-700">{product.description}</p>
          {!product.ecwid_product_id && (
            <p className="mt-8 rounded-md bg-sage-100 p-4 font-display text-2xl font-semibold text-sage-700">
              Product Details Coming Soon
            </p>
          )}
        </div>
      </div>
      {product.ecwid_product_id && <StoreWidget productId={product.ecwid_product_id} slug={product.ecwid_product_slug} />}
    </Section>
  )
}
