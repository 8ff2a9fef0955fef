import type { ComponentType } from 'react'
import { lazyRetry, loadWithRetry } from './lazyRetry'

/** A page that reads through TanStack Query: the page and the query cache load together. */
export function withQueries(load: () => Promise<{ default: ComponentType }>) {
  return lazyRetry(async () => {
    const [{ QueryProvider }, page] = await Promise.all([
      loadWithRetry(() => import('./QueryProvider')),
      loadWithRetry(load),
    ])
    const Page = page.default
    return {
      default: () => (
        <QueryProvider>
          <Page />
        </QueryProvider>
      ),
    }
  })
}
