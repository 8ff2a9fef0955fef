/** The public catalogue's cached queries. */
import { useQuery } from '@tanstack/react-query'
import { fetchProductDetail, fetchProductsForSlug } from './api'

export const catalogueKeys = {
  list: (slug?: string) => ['catalogue', 'list', slug ?? null] as const,
  detail: (id: string) => ['catalogue', 'detail', id] as const,
}

/** The product list of a slug: loading first, then the list (empty after a logged error). */
export function useProductsForSlug(slug?: string) {
  return useQuery({ queryKey: catalogueKeys.list(slug), queryFn: () => fetchProductsForSlug(slug) })
}

/** One product for its page; the query fails (and the page logs it) on a fetch error. */
export function useProductDetail(id: string) {
  return useQuery({
    queryKey: catalogueKeys.detail(id),
    queryFn: async () => {
      const { product, error } = await fetchProductDetail(id)
      if (error) throw error
      return product
    },
  })
}
