/**
 * Where a stored image is shown from, without loading supabase-js (the home page's cards use
 * it): uploads are objects in a public bucket, at the address supabase-js's `getPublicUrl`
 * gives; demo art (`/demo/…`) and any full URL are used as they are.
 */
import { apiConfig } from './apiConfig'

export type ImageBucket = 'product-images' | 'category-images'

/** Whether a stored value names an object in the bucket (rather than a site path or a URL). */
export function isObjectPath(value: string | null | undefined): value is string {
  return !!value && !value.startsWith('/') && !/^[a-z][a-z0-9+.-]*:/i.test(value)
}

/** The URL to show for a stored image value; null when there is none. */
export function imageUrl(bucket: ImageBucket, value: string | null | undefined): string | null {
  if (!value) return null
  if (!isObjectPath(value)) return value
  const base = apiConfig().url.replace(/\/+$/, '')
  return encodeURI(`${base}/storage/v1/object/public/${bucket}/${value.replace(/^\/+/, '')}`)
}
