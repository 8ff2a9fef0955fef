import { site } from '@/config/site'

/** The third-party store's product browser entry point, once its script has run. */
type ProductBrowser = (...settings: string[]) => void

declare global {
  interface Window {
    xProductBrowser?: ProductBrowser
  }
}

export const STORE_POLL_MS = 100
/** After this long without the script, the checkout is reported unavailable. */
export const STORE_GIVE_UP_MS = 10000

let loading: Promise<void> | null = null

/** Adds the store's script to the page once; later calls share the same load. */
export function loadStoreScript(): Promise<void> {
  if (loading) return loading
  loading = new Promise((resolve, reject) => {
    const s = document.createElement('script')
    s.src = `${site.storeScriptUrl}?${site.storeId}&data_platform=code`
    s.async = true
    s.dataset.cfasync = 'false'
    s.onload = () => resolve()
    s.onerror = () => {
      loading = null
      s.remove()
      reject(new Error('The store script could not be loaded'))
    }
    document.body.appendChild(s)
  })
  return loading
}

/** Polls every 100 ms until the product browser exists, or gives up. */
export function waitForProductBrowser(signal: AbortSignal): Promise<ProductBrowser> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const tick = () => {
      if (signal.aborted) return reject(new Error('aborted'))
      if (typeof window.xProductBrowser === 'function') return resolve(window.xProductBrowser)
      if (Date.now() - started > STORE_GIVE_UP_MS)
        return reject(new Error('The store did not start'))
      setTimeout(tick, STORE_POLL_MS)
    }
    tick()
  })
}

/** The widget settings of SPEC.md §7: grid 20 per page in 3 columns, list 60, table 60, 3 categories per row. */
export function productBrowserSettings(
  containerId: string,
  productId: string,
  slug?: string | null,
): string[] {
  const settings = [
    'categoriesPerRow=3',
    'views=grid(20,3) list(60) table(60)',
    'categoryView=grid',
    'searchView=list',
    `id=${containerId}`,
    `defaultProductId=${productId}`,
  ]
  if (slug) settings.push(`defaultSlug=${slug}`)
  return settings
}
