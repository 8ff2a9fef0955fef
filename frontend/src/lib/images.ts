/**
 * The shop's images: uploads go to a public bucket and the database keeps the object's name in
 * that bucket, so rows do not depend on one API address. Demo art (`/demo/…`) and any full URL
 * are used as they are. Where an image is shown from is lib/imageUrl.ts (no supabase-js).
 */
import { supabase } from './supabase'
import { isObjectPath, type ImageBucket } from './imageUrl'

export { imageUrl, isObjectPath, type ImageBucket } from './imageUrl'

export const MAX_IMAGE_BYTES = 5 * 1024 * 1024
export const ACCEPTED_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const

/** Checks an image before upload; returns the message to show, or null when it may be uploaded. */
export function validateImageFile(file: { type: string; size: number }): string | null {
  if (!file.type.startsWith('image/')) return 'Please upload an image file'
  if (!(ACCEPTED_IMAGE_TYPES as readonly string[]).includes(file.type))
    return 'Please upload a PNG, JPG or WEBP image'
  if (file.size >= MAX_IMAGE_BYTES) return 'File size must be less than 5MB'
  return null
}

/** What the owner reads when the image function cannot run on this server. */
export const UPLOADS_UNAVAILABLE =
  'Photo uploads are not available on this server right now — the rest of the admin works.'

/** Uploads an image through the shop-image Edge Function, which checks it by its content and
 * stores it; resolves to its object name, or throws with the function's message. */
export async function uploadImage(bucket: ImageBucket, file: File): Promise<string> {
  const { data, error } = await supabase.functions.invoke<{ name: string }>('shop-image', {
    body: file,
    headers: { 'x-bucket': bucket, 'content-type': file.type || 'application/octet-stream' },
  })
  if (error) {
    const answer = (error as { context?: Response }).context
    const body =
      answer && typeof answer.json === 'function'
        ? ((await answer.json().catch(() => null)) as { code?: string; message?: string } | null)
        : null
    // The function could not start on this server (e.g. no Deno): the owner needs to know that
    // photos wait, not the platform's "please check logs".
    if (body?.code === 'BOOT_ERROR') throw new Error(UPLOADS_UNAVAILABLE)
    throw new Error(body?.message ?? error.message)
  }
  return data!.name
}

/**
 * Removes uploaded images no row uses any more. A failure is only logged: what is left behind
 * is found again by `unused_images()` and removed later (see `sweepUnusedImages`).
 */
export async function removeImages(bucket: ImageBucket, values: (string | null | undefined)[]) {
  const names = values.filter(isObjectPath)
  if (names.length === 0) return
  const { error } = await supabase.storage.from(bucket).remove(names)
  if (error) console.warn('Could not remove unused images:', error.message)
}

/** Removes uploads that no product or category uses, an hour after upload (admins only). */
export async function sweepUnusedImages() {
  const { data, error } = await supabase.rpc('unused_images')
  if (error || !data) return
  for (const bucket of ['product-images', 'category-images'] as const) {
    await removeImages(
      bucket,
      data.filter((o) => o.bucket_id === bucket).map((o) => o.name),
    )
  }
}
