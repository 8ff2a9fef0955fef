// Storage as storage-api v1.60 answers supabase-js (and tus-js-client): signed upload URLs,
// list-v2, info/exists, bucket bodies and error texts, image transformations, resumable
// uploads (one resumed after a cut connection) and type checks. Registered by storage-suite.mjs,
// so it runs on local files and on SeaweedFS.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import { Upload } from 'tus-js-client'
import { bombPng, png } from '../support/png.mjs'
import { client, uniqueEmail, psql as sqlAs } from './helpers.mjs'

const stamp = () => `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`
const file = (bytes, name = 'f.png', type = 'image/png') => new File([bytes], name, { type })
const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0]),
  Buffer.alloc(600, 7),
])

/** Width and height of a PNG or a lossless WebP. */
function dims(buf) {
  if (buf.subarray(1, 4).toString() === 'PNG') return [buf.readUInt32BE(16), buf.readUInt32BE(20)]
  assert.equal(buf.subarray(8, 16).toString(), 'WEBPVP8L', 'a lossless WebP')
  const b = buf.subarray(21, 25)
  return [
    1 + (b[0] | ((b[1] & 0x3f) << 8)),
    1 + ((b[1] >> 6) | (b[2] << 2) | ((b[3] & 0x0f) << 10)),
  ]
}

/** A raw request to the storage API with the service key. */
const raw = (gw, path, init = {}) =>
  fetch(`${gw.url}/storage/v1${path}`, {
    ...init,
    headers: { apikey: gw.serviceKey, authorization: `Bearer ${gw.serviceKey}`, ...init.headers },
  })

export function registerFidelityTests(ctx) {
  const svc = () => client(ctx().gw, ctx().gw.serviceKey)
  const bucket = async (options = { public: true }) => {
    const id = `fid-${stamp()}`
    const { error } = await svc().storage.createBucket(id, options)
    assert.equal(error, null)
    return id
  }

  test('signed upload URLs: issued under RLS, used once, upsert only when signed so, scoped', async () => {
    const { gw, admin } = ctx()
    const path = `signed/${stamp()}.png`
    const made = await admin.storage.from('product-images').createSignedUploadUrl(path)
    assert.equal(made.error, null)
    assert.equal(made.data.path, path)
    assert.ok(
      made.data.signedUrl.startsWith(
        `${gw.url}/storage/v1/object/upload/sign/product-images/${path}?token=`,
      ),
    )
    const anon = client(gw)
    const up = await anon.storage
      .from('product-images')
      .uploadToSignedUrl(path, made.data.token, file(png(6, 6)))
    assert.equal(up.error, null, 'the token is the authority: no session needed')
    assert.equal(up.data.path, path)
    assert.equal(up.data.fullPath, `product-images/${path}`)
    const info = await admin.storage.from('product-images').info(path)
    assert.equal(info.data.size, png(6, 6).length)
    const again = await anon.storage
      .from('product-images')
      .uploadToSignedUrl(path, made.data.token, file(png()))
    assert.equal(again.error.message, 'The resource already exists')
    assert.equal(again.error.statusCode, '409')

    const over = await admin.storage
      .from('product-images')
      .createSignedUploadUrl(path, { upsert: true })
    const blue = png(3, 3, [0, 0, 255])
    assert.equal(
      (
        await anon.storage
          .from('product-images')
          .uploadToSignedUrl(path, over.data.token, file(blue))
      ).error,
      null,
    )
    const { data: got } = await admin.storage.from('product-images').download(path)
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), blue)

    // Another path, or a download with an upload token, or an upload with a download token.
    const other = await anon.storage
      .from('product-images')
      .uploadToSignedUrl(`signed/other-${stamp()}.png`, made.data.token, file(png()))
    assert.equal(other.error.message, 'Invalid signature')
    const asDownload = await fetch(
      `${gw.url}/storage/v1/object/sign/product-images/${path}?token=${made.data.token}`,
    )
    assert.equal(asDownload.status, 400)
    assert.equal((await asDownload.json()).message, 'Token is not scoped for download')
    const dl = await admin.storage.from('product-images').createSignedUrl(path, 60)
    const dlToken = new URL(dl.data.signedUrl).searchParams.get('token')
    const asUpload = await anon.storage
      .from('product-images')
      .uploadToSignedUrl(path, dlToken, file(png()))
    assert.equal(asUpload.error.message, 'Token is not scoped for upload')

    // Someone RLS would refuse gets no URL at all.
    const user = client(gw)
    await user.auth.signUp({ email: uniqueEmail('signer'), password: 'secret123' })
    const refused = await user.storage
      .from('product-images')
      .createSignedUploadUrl(`signed/${stamp()}.png`)
    assert.equal(refused.error.statusCode, '403')
    assert.match(refused.error.message, /row-level security/)
  })

  test('list-v2: flat, by folder with keys, paged by cursor in every order', async () => {
    const id = await bucket()
    const s = svc().storage.from(id)
    const base = 'testpath/file'
    const suffixes = ['zz', 'bb', 'xx', 'ww', 'cc', 'aa', 'yy', 'oo']
    for (const x of suffixes)
      assert.equal((await s.upload(base + x, 'x', { contentType: 'text/plain' })).error, null)
    assert.equal((await s.upload('other/deep/note.txt', 'x')).error, null)
    assert.equal((await s.upload('top.txt', 'x')).error, null)

    const flat = await s.listV2({ prefix: 'testpath' })
    assert.equal(flat.error, null)
    assert.equal(flat.data.hasNext, false)
    assert.deepEqual(flat.data.folders, [])
    assert.deepEqual(
      flat.data.objects.map((o) => o.name),
      suffixes.map((x) => base + x).sort(),
    )
    assert.ok(flat.data.objects.every((o) => o.id && o.metadata && o.created_at && o.updated_at))

    const top = await s.listV2({ with_delimiter: true })
    assert.deepEqual(top.data.folders, [
      { key: 'other', name: 'other/' },
      { key: 'testpath', name: 'testpath/' },
    ])
    assert.deepEqual(
      top.data.objects.map((o) => [o.key, o.name]),
      [['top.txt', 'top.txt']],
    )
    const deeper = await s.listV2({ prefix: 'other/', with_delimiter: true })
    assert.deepEqual(deeper.data.folders, [{ key: 'deep', name: 'other/deep/' }])

    const orders = [
      [undefined, suffixes.slice().sort()],
      [{ column: 'name', order: 'desc' }, suffixes.slice().sort().reverse()],
      [{ column: 'created_at', order: 'asc' }, suffixes.slice()],
      [{ column: 'created_at', order: 'desc' }, suffixes.slice().reverse()],
    ]
    for (const [sortBy, expected] of orders) {
      let cursor
      const seen = []
      let pages = 0
      do {
        const page = await s.listV2({
          prefix: 'testpath/',
          with_delimiter: true,
          limit: 2,
          ...(cursor ? { cursor } : {}),
          ...(sortBy ? { sortBy } : {}),
        })
        assert.equal(page.error, null)
        assert.equal(page.data.objects.length, 2)
        seen.push(...page.data.objects.map((o) => o.name.slice(base.length)))
        cursor = page.data.hasNext ? page.data.nextCursor : undefined
        pages++
      } while (cursor)
      assert.equal(pages, 4)
      assert.deepEqual(seen, expected, JSON.stringify(sortBy))
    }
    const bad = await s.listV2({ cursor: Buffer.from('x:1').toString('base64') })
    assert.equal(bad.error.message, 'Invalid Parameter continuation token')
    const badLimit = await s.listV2({ limit: 0 })
    assert.equal(badLimit.error.statusCode, '400')
  })

  test('info and exists as storage-api answers them', async () => {
    const { gw, admin } = ctx()
    const id = await bucket({ public: true })
    const s = svc().storage.from(id)
    await s.upload('a/info.png', png(5, 5), {
      contentType: 'image/png',
      cacheControl: '120',
      metadata: { custom: 'metadata', n: '2' },
    })
    const info = await s.info('a/info.png')
    assert.equal(info.error, null)
    assert.equal(info.data.name, 'a/info.png')
    assert.equal(info.data.bucketId, id)
    assert.equal(info.data.size, png(5, 5).length)
    assert.equal(info.data.contentType, 'image/png')
    assert.equal(info.data.cacheControl, 'max-age=120')
    assert.match(info.data.etag, /^".+"$/)
    assert.deepEqual(info.data.metadata, { custom: 'metadata', n: '2' })
    assert.ok(info.data.lastModified && info.data.createdAt && info.data.version)
    // A public bucket's objects are readable by anyone signed in, without an RLS policy.
    const user = client(gw)
    await user.auth.signUp({ email: uniqueEmail('reader'), password: 'secret123' })
    assert.equal((await user.storage.from(id).info('a/info.png')).error, null)
    assert.equal((await user.storage.from(id).exists('a/info.png')).data, true)
    const missing = await s.exists('a/none.png')
    assert.equal(missing.data, false)
    assert.equal(missing.error.status, 400)
    const noBucket = await admin.storage.from(`nope-${stamp()}`).info('x.png')
    assert.equal(noBucket.error.message, 'Bucket not found')
    const publicInfo = await fetch(`${gw.url}/storage/v1/object/info/public/${id}/a/info.png`)
    assert.equal(publicInfo.status, 200)
  })

  test('bucket bodies, size strings and error texts as storage-api v1.60', async () => {
    const { gw } = ctx()
    const storage = svc().storage
    const id = await bucket({ public: false, fileSizeLimit: '20mb' })
    const got = await storage.getBucket(id)
    assert.deepEqual(Object.keys(got.data).sort(), [
      'allowed_mime_types',
      'created_at',
      'file_size_limit',
      'id',
      'name',
      'owner',
      'public',
      'updated_at',
    ])
    assert.equal(got.data.file_size_limit, 20_000_000)
    assert.equal(got.data.owner, null, 'made with the service key: no owner')
    const listed = await storage.listBuckets({ search: id })
    assert.equal(listed.data.length, 1)
    assert.equal(listed.data[0].type, 'STANDARD')
    const paged = await storage.listBuckets({
      limit: 1,
      sortColumn: 'created_at',
      sortOrder: 'desc',
    })
    assert.equal(paged.data.length, 1)

    assert.equal(
      (await storage.updateBucket(id, { public: false, fileSizeLimit: '1.5GB' })).error,
      null,
    )
    assert.equal((await storage.getBucket(id)).data.file_size_limit, 1_500_000_000)
    const badSize = await storage.createBucket(`fid-${stamp()}`, {
      public: true,
      fileSizeLimit: '20 megs',
    })
    assert.equal(
      badSize.error.message,
      'Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B',
    )
    const badName = await storage.createBucket('a/b')
    assert.equal(badName.error.message, 'Bucket name invalid')
    assert.equal(badName.error.statusCode, '400')
    const dup = await storage.createBucket(id)
    assert.equal(dup.error.message, 'The resource already exists')
    assert.equal(dup.error.statusCode, '409')

    await storage.from(id).upload('x.txt', 'x')
    const notEmpty = await storage.deleteBucket(id)
    assert.equal(notEmpty.error.message, 'The bucket you tried to delete is not empty')
    assert.equal(notEmpty.error.statusCode, '409')
    const emptied = await storage.emptyBucket(id)
    assert.deepEqual(emptied.data, {
      message: 'Empty bucket has been queued. Completion may take up to an hour.',
    })
    assert.deepEqual((await storage.deleteBucket(id)).data, { message: 'Successfully deleted' })
    const gone = await storage.getBucket(id)
    assert.equal(gone.error.message, 'Bucket not found')

    const noAuth = await fetch(`${gw.url}/storage/v1/bucket`)
    assert.equal(noAuth.status, 400)
    assert.deepEqual(await noAuth.json(), {
      statusCode: '400',
      code: 'InvalidJWT',
      error: 'InvalidJWT',
      message: 'Invalid Compact JWS',
    })
    const badKey = await raw(gw, `/object/${id}/a%5Cb.txt`, { method: 'POST', body: 'x' })
    assert.equal((await badKey.json()).code, 'InvalidKey')
  })

  test('image transformations: sizes, formats, signed renders, caching with the version', async () => {
    const { gw } = ctx()
    const id = await bucket({ public: true })
    const s = svc().storage.from(id)
    const src = png(400, 200)
    assert.equal(
      (await s.upload('pics/wide.png', src, { contentType: 'image/png', cacheControl: '600' }))
        .error,
      null,
    )

    const url = s.getPublicUrl('pics/wide.png', { transform: { width: 100, height: 100 } }).data
      .publicUrl
    assert.ok(url.includes('/render/image/public/'))
    const cover = await fetch(url)
    assert.equal(cover.status, 200)
    assert.equal(
      cover.headers.get('content-type'),
      'image/png',
      'no WebP unless the client accepts it',
    )
    assert.equal(cover.headers.get('cache-control'), 'max-age=600')
    assert.deepEqual(dims(Buffer.from(await cover.arrayBuffer())), [100, 100])
    const contain = await fetch(
      s.getPublicUrl('pics/wide.png', { transform: { width: 100, height: 100, resize: 'contain' } })
        .data.publicUrl,
    )
    assert.deepEqual(dims(Buffer.from(await contain.arrayBuffer())), [100, 50])
    const fill = await fetch(
      s.getPublicUrl('pics/wide.png', { transform: { width: 100, height: 100, resize: 'fill' } })
        .data.publicUrl,
    )
    assert.deepEqual(dims(Buffer.from(await fill.arrayBuffer())), [100, 100])
    const webp = await fetch(url, { headers: { accept: 'image/avif,image/webp,*/*' } })
    assert.equal(webp.headers.get('content-type'), 'image/webp')
    assert.deepEqual(dims(Buffer.from(await webp.arrayBuffer())), [100, 100])
    const origin = await fetch(`${url}&format=origin`, { headers: { accept: 'image/webp' } })
    assert.equal(origin.headers.get('content-type'), 'image/png')
    const etag = cover.headers.get('etag')
    assert.equal((await fetch(url, { headers: { 'if-none-match': etag } })).status, 304)

    // The authenticated download and a signed URL whose token fixes the transformation.
    const dl = await s.download('pics/wide.png', { transform: { width: 40 } })
    assert.equal(dl.error, null)
    assert.deepEqual(dims(Buffer.from(await dl.data.arrayBuffer())), [40, 20])
    const signed = await s.createSignedUrl('pics/wide.png', 60, {
      transform: { width: 50, height: 50 },
    })
    assert.equal(signed.error, null)
    assert.ok(signed.data.signedUrl.includes('/render/image/sign/'))
    const viaToken = await fetch(`${signed.data.signedUrl}&width=300`)
    assert.equal(viaToken.status, 200)
    assert.deepEqual(
      dims(Buffer.from(await viaToken.arrayBuffer())),
      [50, 50],
      'the query cannot change a signed transformation',
    )
    const plain = await s.createSignedUrl('pics/wide.png', 60, { transform: {} })
    assert.ok(plain.data.signedUrl.includes('/object/sign/'))

    // Renderings are cached beside the version, and go with it.
    const cached = await gw.stored('renders/')
    assert.ok(cached.length >= 4, `cached renderings: ${cached.length}`)
    assert.deepEqual(
      Buffer.from(await (await fetch(url)).arrayBuffer()),
      Buffer.from(await (await fetch(url)).arrayBuffer()),
    )
    const { data: inf } = await s.info('pics/wide.png')
    assert.ok((await gw.stored(`renders/${inf.version}`)).length >= 1)
    assert.equal((await s.remove(['pics/wide.png'])).error, null)
    assert.deepEqual(
      (await gw.stored(`renders/${inf.version}`)).filter((k) => !k.endsWith('/')),
      [],
    )

    // SVG is served as it is unless a raster format is named (imgproxy rasterises it only then).
    const logo =
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'
    await s.upload('pics/logo.svg', logo, { contentType: 'image/svg+xml' })
    const svgUrl = s.getPublicUrl('pics/logo.svg', {
      transform: { width: 200, height: 200, resize: 'cover' },
    })
    const svgRender = await fetch(svgUrl.data.publicUrl, { headers: { accept: 'image/webp,*/*' } })
    assert.equal(svgRender.status, 200)
    assert.equal(svgRender.headers.get('content-type'), 'image/svg+xml')
    assert.match(svgRender.headers.get('content-security-policy'), /sandbox/)
    assert.equal(await svgRender.text(), logo)

    // Bad parameters, non-images and decompression bombs are refused with storage-api's texts.
    await s.upload('pics/note.txt', 'not an image', { contentType: 'text/plain' })
    const notImage = await fetch(
      s.getPublicUrl('pics/note.txt', { transform: { width: 10 } }).data.publicUrl,
    )
    assert.equal(notImage.status, 400)
    assert.equal(
      (await notImage.json()).message,
      'The source image is invalid or unsupported for rendering',
    )
    await s.upload('pics/bomb.png', bombPng(), { contentType: 'image/png' })
    const refused = await fetch(
      s.getPublicUrl('pics/bomb.png', { transform: { width: 10 } }).data.publicUrl,
    )
    assert.equal(refused.status, 400)
    assert.equal(
      (await refused.json()).message,
      'The source image resolution is too large to process',
    )
    const badWidth = await fetch(
      `${gw.url}/storage/v1/render/image/public/${id}/pics/bomb.png?width=abc`,
    )
    assert.equal((await badWidth.json()).code, 'InvalidParameter')
    const privateRender = await fetch(
      `${gw.url}/storage/v1/render/image/public/product-images-missing/x.png?width=1`,
    )
    assert.equal((await privateRender.json()).message, 'Bucket not found')
  })

  test('type checks: the declared type wins, content that would run is refused, nosniff', async () => {
    const id = await bucket({
      public: true,
      allowedMimeTypes: ['image/png', 'text/plain', 'text/html'],
    })
    const s = svc().storage.from(id)
    const jpegAsPng = await s.upload('a.png', JPEG, { contentType: 'image/png' })
    assert.equal(jpegAsPng.error, null, 'storage-api keeps a JPEG declared as PNG')
    const res = await fetch(s.getPublicUrl('a.png').data.publicUrl)
    assert.equal(res.headers.get('content-type'), 'image/png')
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff')
    const page = Buffer.from('<!DOCTYPE html><script>alert(document.cookie)</script>')
    const htmlAsPng = await s.upload('b.png', page, { contentType: 'image/png' })
    assert.equal(htmlAsPng.error.statusCode, '415')
    assert.match(htmlAsPng.error.message, /^mime type image\/png is not supported/)
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>')
    assert.equal(
      (await s.upload('c.svg', svg, { contentType: 'image/png' })).error.statusCode,
      '415',
    )
    // text/plain is shown as text, never run (supabase-py declares it for every untyped upload).
    assert.equal((await s.upload('c.txt', svg, { contentType: 'text/plain' })).error, null)
    const asText = await fetch(s.getPublicUrl('c.txt').data.publicUrl)
    assert.equal(asText.headers.get('content-type'), 'text/plain')
    assert.equal(asText.headers.get('x-content-type-options'), 'nosniff')
    const elf = Buffer.concat([
      Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]),
      Buffer.alloc(600),
    ])
    assert.equal(
      (await s.upload('d.png', elf, { contentType: 'image/png' })).error.statusCode,
      '415',
    )
    // Declared honestly, HTML is stored, then served sandboxed (listed by the bucket: inline).
    assert.equal((await s.upload('e.html', page, { contentType: 'text/html' })).error, null)
    const served = await fetch(s.getPublicUrl('e.html').data.publicUrl)
    assert.match(served.headers.get('content-security-policy'), /sandbox/)
    const wrongType = await s.upload('f.gif', Buffer.from('GIF89a'), { contentType: 'image/gif' })
    assert.equal(wrongType.error.message, 'mime type image/gif is not supported')
    const listed = await s.listV2({})
    assert.deepEqual(
      listed.data.objects.map((o) => o.name),
      ['a.png', 'c.txt', 'e.html'],
      'nothing refused was stored',
    )
  })

  test('resumable uploads (tus): chunks, the object only when complete, RLS, limits, termination', async () => {
    const { gw, admin } = ctx()
    const token = (await admin.auth.getSession()).data.session.access_token
    const endpoint = `${gw.url}/storage/v1/upload/resumable`
    const name = `tus/${stamp()}.png`
    const bytes = png(300, 300, [10, 200, 30], 1_200_000)
    let chunks = 0
    const result = await tusUpload(endpoint, bytes, {
      headers: { authorization: `Bearer ${token}`, apikey: gw.anonKey },
      metadata: {
        bucketName: 'product-images',
        objectName: name,
        contentType: 'image/png',
        cacheControl: '3600',
      },
      chunkSize: 400_000,
      onChunkComplete: () => chunks++,
    })
    assert.equal(result.error, null)
    assert.ok(chunks >= 3, `${chunks} chunks`)
    const { data } = await admin.storage.from('product-images').download(name)
    assert.deepEqual(Buffer.from(await data.arrayBuffer()), bytes)
    const info = await admin.storage.from('product-images').info(name)
    assert.equal(info.data.cacheControl, 'max-age=3600')
    assert.equal(
      (await gw.stored('resumable/')).filter((k) => /\d{20}-/.test(k)).length,
      0,
      'no parts left',
    )

    const head = { 'tus-resumable': '1.0.0', authorization: `Bearer ${token}`, apikey: gw.anonKey }
    const meta = (o) =>
      Object.entries(o)
        .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
        .join(',')
    const create = (headers, m) =>
      fetch(endpoint, {
        method: 'POST',
        headers: { ...head, ...headers, 'upload-metadata': meta(m) },
      })
    // Refused before any byte: RLS (anonymous), the bucket's size and type limits, a duplicate.
    const anonymous = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'tus-resumable': '1.0.0',
        authorization: `Bearer ${gw.anonKey}`,
        apikey: gw.anonKey,
        'upload-length': '10',
        'upload-metadata': meta({
          bucketName: 'product-images',
          objectName: `tus/${stamp()}.png`,
          contentType: 'image/png',
        }),
      },
    })
    assert.equal(anonymous.status, 403)
    assert.match(await anonymous.text(), /row-level security/)
    const big = await create(
      { 'upload-length': String(6 * 1024 * 1024) },
      { bucketName: 'product-images', objectName: `tus/${stamp()}.png`, contentType: 'image/png' },
    )
    assert.equal(big.status, 413)
    const gif = await create(
      { 'upload-length': '10' },
      { bucketName: 'product-images', objectName: `tus/${stamp()}.gif`, contentType: 'image/gif' },
    )
    assert.equal(gif.status, 415)
    const dup = await create(
      { 'upload-length': '10' },
      { bucketName: 'product-images', objectName: name, contentType: 'image/png' },
    )
    assert.equal(dup.status, 409)
    assert.equal(
      (await fetch(endpoint, { method: 'POST', headers: { ...head, 'upload-length': '1' } }))
        .status,
      400,
    )
    assert.equal(
      (
        await fetch(endpoint, {
          method: 'POST',
          headers: { authorization: head.authorization, 'upload-length': '1' },
        })
      ).status,
      412,
    )

    // Offsets must match; an upload can be terminated; others cannot touch it.
    const made = await create(
      { 'upload-length': '100' },
      { bucketName: 'product-images', objectName: `tus/${stamp()}.png`, contentType: 'image/png' },
    )
    assert.equal(made.status, 201)
    const loc = made.headers.get('location')
    assert.ok(loc.startsWith(`${endpoint}/`))
    assert.ok(made.headers.get('upload-expires'))
    const patch = (offset, body, headers = head) =>
      fetch(loc, {
        method: 'PATCH',
        headers: {
          ...headers,
          'upload-offset': String(offset),
          'content-type': 'application/offset+octet-stream',
        },
        body,
      })
    assert.equal((await patch(5, Buffer.alloc(10))).status, 409)
    const first = await patch(0, png().subarray(0, 40))
    assert.equal(first.status, 204)
    assert.equal(first.headers.get('upload-offset'), '40')
    assert.equal(
      (await fetch(loc, { method: 'HEAD', headers: head })).headers.get('upload-offset'),
      '40',
    )
    const partName = decodeURIComponent(
      Buffer.from(loc.split('/').at(-1), 'base64url').toString().split('/').slice(1, -1).join('/'),
    )
    assert.equal(
      (await admin.storage.from('product-images').exists(partName)).data,
      false,
      'invisible until complete',
    )
    assert.equal((await patch(40, Buffer.alloc(61))).status, 413, 'more than Upload-Length')
    const stranger = client(gw)
    await stranger.auth.signUp({ email: uniqueEmail('stranger'), password: 'secret123' })
    const t2 = (await stranger.auth.getSession()).data.session.access_token
    assert.equal(
      (await fetch(loc, { method: 'HEAD', headers: { ...head, authorization: `Bearer ${t2}` } }))
        .status,
      404,
    )
    assert.equal((await fetch(loc, { method: 'DELETE', headers: head })).status, 204)
    assert.equal((await fetch(loc, { method: 'HEAD', headers: head })).status, 404)

    // Content that would run, declared as an image, is refused when it completes.
    const evil = Buffer.from('<html><script>alert(1)</script></html>')
    const evilName = `tus/${stamp()}.png`
    const e = await create(
      { 'upload-length': String(evil.length) },
      { bucketName: 'product-images', objectName: evilName, contentType: 'image/png' },
    )
    const evilPatch = await fetch(e.headers.get('location'), {
      method: 'PATCH',
      headers: { ...head, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
      body: evil,
    })
    assert.equal(evilPatch.status, 415)
    assert.equal((await admin.storage.from('product-images').exists(evilName)).data, false)
    const options = await fetch(endpoint, { method: 'OPTIONS' })
    assert.equal(options.headers.get('tus-version'), '1.0.0')
  })

  test('a resumable upload to a signed URL (x-signature) is written as the signer, only to its object', async () => {
    const { gw, admin } = ctx()
    const psql = (sql) => sqlAs(gw, sql)
    const name = `tus/signed-${stamp()}.png`
    const { data, error } = await admin.storage.from('product-images').createSignedUploadUrl(name)
    assert.equal(error, null)
    const bytes = png(64, 64, [90, 90, 200], 300_000)
    const endpoint = `${gw.url}/storage/v1/upload/resumable/sign`
    const result = await tusUpload(endpoint, bytes, {
      headers: { 'x-signature': data.token, apikey: gw.anonKey },
      metadata: { bucketName: 'product-images', objectName: name, contentType: 'image/png' },
      chunkSize: 100_000,
    })
    assert.equal(result.error, null)
    assert.ok(result.url.startsWith(`${endpoint}/`))
    const { data: got } = await admin.storage.from('product-images').download(name)
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), bytes)
    const adminId = (await admin.auth.getUser()).data.user.id
    assert.equal(
      psql(
        `select owner_id from storage.objects where bucket_id = 'product-images' and name = '${name}'`,
      ),
      adminId,
    )
    // The token names one object; no token, no upload.
    const b64 = (v) => Buffer.from(v).toString('base64')
    const create = (headers, objectName) =>
      fetch(endpoint, {
        method: 'POST',
        headers: {
          'tus-resumable': '1.0.0',
          'upload-length': '10',
          'upload-metadata': `bucketName ${b64('product-images')},objectName ${b64(objectName)},contentType ${b64('image/png')}`,
          ...headers,
        },
      })
    const other = await create({ 'x-signature': data.token }, `tus/other-${stamp()}.png`)
    assert.equal(other.status, 400)
    assert.equal(await other.text(), 'Invalid signature')
    const none = await create({}, name)
    assert.equal(none.status, 400)
    assert.equal(await none.text(), 'Missing x-signature header')
  })

  test('an expired resumable upload is refused, and swept with its parts', async () => {
    const { gw, admin } = ctx()
    const psql = (sql) => sqlAs(gw, sql)
    const token = (await admin.auth.getSession()).data.session.access_token
    const head = { 'tus-resumable': '1.0.0', authorization: `Bearer ${token}`, apikey: gw.anonKey }
    const b64 = (v) => Buffer.from(v).toString('base64')
    const meta = (name) =>
      `bucketName ${b64('product-images')},objectName ${b64(name)},contentType ${b64('image/png')}`
    const create = (name) =>
      fetch(`${gw.url}/storage/v1/upload/resumable`, {
        method: 'POST',
        headers: { ...head, 'upload-length': '50', 'upload-metadata': meta(name) },
      })
    const made = await create(`tus/old-${stamp()}.png`)
    assert.equal(made.status, 201, await made.clone().text())
    const loc = made.headers.get('location')
    const id = loc.split('/').at(-1)
    const version = Buffer.from(id, 'base64url').toString().split('/').at(-1)
    const first = await fetch(loc, {
      method: 'PATCH',
      headers: { ...head, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
      body: png().subarray(0, 20),
    })
    assert.equal(first.status, 204)
    assert.equal(
      (await gw.stored(`resumable/${version}`)).filter((k) => /\d{20}-/.test(k)).length,
      1,
      'one part kept',
    )
    psql(
      `update supagate.resumable_uploads set expires_at = now() - interval '1 minute' where id = '${id}'`,
    )
    assert.equal((await fetch(loc, { method: 'HEAD', headers: head })).status, 404)
    const late = await fetch(loc, {
      method: 'PATCH',
      headers: {
        ...head,
        'upload-offset': '20',
        'content-type': 'application/offset+octet-stream',
      },
      body: Buffer.alloc(30),
    })
    assert.equal(late.status, 404)
    assert.equal(await late.text(), 'Upload not found')
    // The next upload anyone creates sweeps it.
    assert.equal((await create(`tus/new-${stamp()}.png`)).status, 201)
    assert.equal(psql(`select count(*) from supagate.resumable_uploads where id = '${id}'`), '0')
    assert.deepEqual(
      (await gw.stored(`resumable/${version}`)).filter((k) => /\d{20}-/.test(k)),
      [],
    )
  })

  test('a resumable upload survives a cut connection and resumes from its offset', async () => {
    const { gw, admin } = ctx()
    const token = (await admin.auth.getSession()).data.session.access_token
    const proxy = await cuttingProxy(new URL(gw.url), 600_000)
    try {
      const name = `tus/cut-${stamp()}.png`
      const bytes = png(500, 500, [250, 120, 40], 1_500_000)
      const result = await tusUpload(`${proxy.url}/storage/v1/upload/resumable`, bytes, {
        headers: { authorization: `Bearer ${token}`, apikey: gw.anonKey },
        metadata: { bucketName: 'product-images', objectName: name, contentType: 'image/png' },
        retryDelays: [500, 1000, 2000],
      })
      assert.equal(result.error, null)
      assert.equal(proxy.cuts, 1, 'the connection was cut once')
      assert.ok(proxy.patchOffsets.length >= 2, `PATCHes: ${proxy.patchOffsets}`)
      assert.equal(proxy.patchOffsets[0], 0)
      const resumedAt = proxy.patchOffsets.at(-1)
      assert.ok(
        resumedAt > 0 && resumedAt <= 600_000,
        `resumed at ${resumedAt}, not from the start`,
      )
      const { data } = await admin.storage.from('product-images').download(name)
      assert.deepEqual(Buffer.from(await data.arrayBuffer()), bytes)
    } finally {
      await proxy.close()
    }
  })
}

/** Runs one tus-js-client upload to its end; resolves with the error, if any. */
function tusUpload(endpoint, bytes, options) {
  return new Promise((resolve) => {
    const upload = new Upload(bytes, {
      endpoint,
      retryDelays: [],
      removeFingerprintOnSuccess: true,
      ...options,
      onError: (error) => resolve({ error }),
      onSuccess: () => resolve({ error: null, url: upload.url }),
    })
    upload.start()
  })
}

/** A TCP proxy to `target` that cuts the connection once, `after` bytes into the first PATCH
 * body, and records the Upload-Offset of every PATCH. */
async function cuttingProxy(target, after) {
  const state = { cuts: 0, patchOffsets: [] }
  const sockets = new Set()
  const server = net.createServer((c) => {
    const s = net.connect(Number(target.port), target.hostname)
    sockets.add(c).add(s)
    let inPatch = false
    let body = 0
    c.on('data', (d) => {
      const text = d.toString('latin1')
      if (text.startsWith('PATCH ')) {
        const m = /upload-offset: *(\d+)/i.exec(text)
        state.patchOffsets.push(m ? Number(m[1]) : -1)
        inPatch = true
        body = -text.indexOf('\r\n\r\n') - 4
      }
      if (inPatch && state.cuts === 0) {
        body += d.length
        if (body >= after) {
          state.cuts++
          s.end(d.subarray(0, d.length - (body - after)))
          c.destroy()
          return
        }
      }
      s.write(d)
    })
    // The gateway names its own address in Location (never the request's Host): the proxy
    // rewrites it to its own, as nginx's `proxy_redirect default` does.
    s.on('data', (d) => {
      const text = d.toString('latin1')
      const rewritten = text.replace(
        /^(location: *)http:\/\/[^/\r\n]+/im,
        `$1http://127.0.0.1:${server.address().port}`,
      )
      if (c.writable) c.write(rewritten === text ? d : Buffer.from(rewritten, 'latin1'))
    })
    c.on('error', () => s.destroy())
    s.on('error', () => c.destroy())
    c.on('close', () => s.end())
    s.on('close', () => c.destroy())
  })
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    get cuts() {
      return state.cuts
    },
    patchOffsets: state.patchOffsets,
    close: () => {
      for (const s of sockets) s.destroy()
      return new Promise((r) => server.close(r))
    },
  }
}
