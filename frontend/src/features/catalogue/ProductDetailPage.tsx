import * as React from 'react'
import { Link, Navigate, useLocation, useNavigate, useParams } from 'react-router-dom'
import { ArrowLeft, Mail, Phone } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Section } from '@/site/layout/PageHero'
import { imageUrl } from '@/lib/images'
import { formatPrice } from '@/lib/utils'
import { useProductDetail } from './queries'
import { loadStoreScript, productBrowserSettings, waitForProductBrowser } from './storeWidget'
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
      {state === 'loading' && (
        <p className="text-muted-foreground" role="status">
          Loading the shop checkout…
        </p>
      )}
      {state === 'unavailable' && (
        <p
          className="rounded-md border border-gold-400 bg-cream-200 p-4 text-ink-700"
          role="status"
        >
          The online checkout is unavailable right now. Please call us on{' '}
          <a href={site.phoneHref} className="font-semibold text-rose-700">
            {site.phone}
          </a>{' '}
          to order this product.
        </p>
      )}
      <div id={containerId} data-testid="store-widget" />
    </div>
  )
}

/** Ways to order a product the online store does not sell yet. */
function OrderByPhone({ name }: { name: string }) {
  return (
    <div className="mt-8 rounded-md bg-sage-100 p-5" data-testid="order-by-phone">
      <p className="font-display text-2xl font-semibold text-sage-700">
        Product Details Coming Soon
      </p>
      <p className="mt-2 text-ink-700">
        You can still order it: call or write to us and we will prepare it for you.
      </p>
      <div className="mt-4 flex flex-wrap gap-3">
        <Button asChild>
          <a href={site.phoneHref}>
            <Phone aria-hidden="true" /> Call {site.phone}
          </a>
        </Button>
        <Button asChild variant="outline">
          <a href={`mailto:${site.email}?subject=${encodeURIComponent(`Order: ${name}`)}`}>
            <Mail aria-hidden="true" /> E-mail us
          </a>
        </Button>
      </div>
      <p className="mt-4 text-sm text-ink-700">
        Or{' '}
        <Link
          to="/build-bouquet"
          className="font-semibold text-rose-700 underline-offset-4 hover:underline"
        >
          build a bouquet of your own
        </Link>
        .
      </p>
    </div>
  )
}

export default function ProductDetailPage() {
  const { id = '' } = useParams()
  const navigate = useNavigate()
  const location = useLocation()
  const { data: product, error, isPending } = useProductDetail(id)
  usePageMeta(product?.name ?? 'Product', product?.description ?? 'Product details')
  React.useEffect(() => {
    if (error) console.error('Error fetching product:', error)
  }, [error])
  // Opened from a shared link there is no page of this site to go back to: go home instead.
  const back = () => (location.key === 'default' ? navigate('/') : navigate(-1))

  if (error) return null
  if (isPending) {
    return (
      <p className="py-24 text-center text-muted-foreground" role="status">
        Loading…
      </p>
    )
  }
  if (!product) return <Navigate to="/not-found" replace state={{ from: location.pathname }} />
  const src = imageUrl('product-images', product.main_image_url)
  return (
    <Section className="max-w-5xl">
      <Button variant="ghost" onClick={back} className="mb-6">
        <ArrowLeft aria-hidden="true" />
        Back
      </Button>
      <div className="grid gap-8 md:grid-cols-2">
        <div className="aspect-square overflow-hidden rounded-lg border bg-cream-200">
          {src ? (
            <img
              src={src}
              alt={product.name}
              className="h-full w-full object-cover"
              width={600}
              height={600}
            />
          ) : (
            <div className="flex h-full items-center justify-center font-semibold uppercase tracking-wider text-muted-foreground">
              No Image
            </div>
          )}
        </div>
        <div>
          <h1 className="font-display text-4xl font-bold">{product.name}</h1>
          <p className="mt-2 text-2xl font-bold text-rose-700">{formatPrice(product.base_price)}</p>
          <p className="mt-4 leading-relaxed text-ink-700">{product.description}</p>
          {!product.ecwid_product_id && <OrderByPhone name={product.name} />}
        </div>
      </div>
      {product.ecwid_product_id && (
        <StoreWidget productId={product.ecwid_product_id} slug={product.ecwid_product_slug} />
      )}
    </Section>
  )
}
