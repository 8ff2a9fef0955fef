// Uploads a product or category photo for a shop administrator, after checking what the file
// is by its content (not its name or the type the browser claims): PNG, JPEG or WebP under
// 5 MB. Only this function may write to the image buckets (the service role); admins call it
// with their session. POST the file's bytes, `x-bucket: product-images | category-images`.
// Answers { name } (the object's name in the bucket), or { message } with 400/403/413/415.
const api = Deno.env.get('SUPABASE_URL')!
const anon = Deno.env.get('SUPABASE_ANON_KEY')!
const service = Deno.env.get('SUPABASE_SERVICE_ROLE_KEY')!

const MAX_BYTES = 5 * 1024 * 1024
const BUCKETS = ['product-images', 'category-images']
const cors = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'authorization, x-client-info, apikey, content-type, x-bucket',
  'access-control-allow-methods': 'POST, OPTIONS',
}

const answer = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { ...cors, 'content-type': 'application/json' } })

/** The image type the bytes are, by their signature; null for anything else. */
export function sniff(b: Uint8Array): { type: string; ext: string } | null {
  const at = (i: number, ...bytes: number[]) => bytes.every((x, j) => b[i + j] === x)
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return { type: 'image/png', ext: 'png' }
  if (at(0, 0xff, 0xd8, 0xff)) return { type: 'image/jpeg', ext: 'jpg' }
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return { type: 'image/webp', ext: 'webp' }
  return null
}

async function isAdmin(authorization: string): Promise<boolean> {
  const res = await fetch(`${api}/rest/v1/rpc/is_admin`, {
    method: 'POST',
    headers: { apikey: anon, authorization, 'content-type': 'application/json' },
    body: '{}',
  })
  return res.ok && (await res.json()) === true
}

Deno.serve(async (req) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: cors })
  if (req.method !== 'POST') return answer(405, { message: 'POST the image' })
  if (!(await isAdmin(req.headers.get('authorization') ?? ''))) {
    return answer(403, { message: 'Only shop administrators may upload images.' })
  }
  const bucket = req.headers.get('x-bucket') ?? ''
  if (!BUCKETS.includes(bucket)) return answer(400, { message: `Unknown image bucket "${bucket}"` })
  if (Number(req.headers.get('content-length') ?? 0) >= MAX_BYTES) return answer(413, { message: 'File size must be less than 5MB' })
  const bytes = new Uint8Array(await req.arrayBuffer())
  if (bytes.length >= MAX_BYTES) return answer(413, { message: 'File size must be less than 5MB' })
  const kind = sniff(bytes)
  if (!kind) {
    return answer(415, { message: 'This file is not a PNG, JPG or WEBP image, whatever its name says. Please choose a photo in one of these formats.' })
  }
  const name = `${crypto.randomUUID().slice(0, 8)}-${Date.now()}.${kind.ext}`
  const stored = await fetch(`${api}/storage/v1/object/${bucket}/${name}`, {
    method: 'POST',
    headers: { apikey: service, authorization: `Bearer ${service}`, 'content-type': kind.type, 'cache-control': 'max-age=3600', 'x-upsert': 'false' },
    body: bytes,
  })
  if (!stored.ok) {
    console.error('shop-image: storing failed', stored.status, await stored.text())
    return answer(502, { message: 'The image could not be stored. Please try again.' })
  }
  return answer(200, { name })
})
