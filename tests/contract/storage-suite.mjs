// storage-js against a fresh gateway serving the shop's project, run once with objects in local
// files (storage.test.mjs) and once in SeaweedFS over S3 (storage-s3.test.mjs): the two backends
// must answer alike. The shop itself uploads its photos through an Edge Function that checks
// them; these tests give its administrators back the direct upload a storage app has, as a
// policy of their own, to drive storage-js as a signed-in user under RLS.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { DEMO_ADMIN } from '../support/gateway.mjs'
import { png } from '../support/png.mjs'
import { client, psql, signedIn, uniqueEmail } from './helpers.mjs'
import { registerFidelityTests } from './storage-fidelity.mjs'

let gw, admin, anon

/** Registers the suite against the gateway `start` resolves to (with its own `stop`). */
export function storageSuite(start) {
  before(async () => {
    gw = await start()
    psql(
      gw,
      `CREATE POLICY "Tests: admins upload shop images" ON storage.objects FOR INSERT TO authenticated
      WITH CHECK (bucket_id IN ('product-images', 'category-images') AND public.is_admin())`,
    )
    admin = await signedIn(gw, DEMO_ADMIN.email, DEMO_ADMIN.password)
    anon = client(gw)
  })
  after(async () => gw?.stop())
  registerTests()
  registerFidelityTests(() => ({ gw, admin, anon }))
}

function registerTests() {
  const file = (bytes, name = 'flower.png', type = 'image/png') => new File([bytes], name, { type })

  test('admin uploads a PNG, and the public URL serves it', async () => {
    const bytes = png(8, 8)
    const name = `${Math.random().toString(36).slice(2)}-${Date.now()}.png`
    const { data, error } = await admin.storage
      .from('product-images')
      .upload(name, file(bytes), { cacheControl: '3600', upsert: false })
    assert.equal(error, null)
    assert.equal(data.path, name)
    assert.equal(data.fullPath, `product-images/${name}`)
    const { data: pub } = admin.storage.from('product-images').getPublicUrl(name)
    const res = await fetch(pub.publicUrl)
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('content-type'), 'image/png')
    assert.equal(res.headers.get('cache-control'), 'max-age=3600')
    assert.ok(res.headers.get('etag'))
    assert.ok(res.headers.get('last-modified'))
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), bytes)
    const again = await fetch(pub.publicUrl, {
      headers: { 'if-none-match': res.headers.get('etag') },
    })
    assert.equal(again.status, 304)
    const part = await fetch(pub.publicUrl, { headers: { range: 'bytes=0-7' } })
    assert.equal(part.status, 206)
    assert.deepEqual(Buffer.from(await part.arrayBuffer()), bytes.subarray(0, 8))
  })

  test('a duplicate upload without upsert fails as storage-js expects; upsert replaces', async () => {
    const name = `dup-${Date.now()}.png`
    await admin.storage
      .from('category-images')
      .upload(name, file(png()), { cacheControl: '3600', upsert: false })
    const dup = await admin.storage
      .from('category-images')
      .upload(name, file(png()), { cacheControl: '3600', upsert: false })
    assert.equal(dup.data, null)
    assert.equal(dup.error.message, 'The resource already exists')
    assert.equal(dup.error.statusCode, '409')
    assert.equal(dup.error.status, 400)
    const blue = png(4, 4, [0, 0, 255])
    const up = await admin.storage
      .from('category-images')
      .upload(name, file(blue), { upsert: true })
    assert.equal(up.error, null)
    const { data: dl } = await admin.storage.from('category-images').download(name)
    assert.deepEqual(Buffer.from(await dl.arrayBuffer()), blue)
  })

  test('too large, wrong type and a renamed executable are refused', async () => {
    const big = await admin.storage
      .from('product-images')
      .upload(`big-${Date.now()}.png`, file(png(4, 4, [1, 2, 3], 5 * 1024 * 1024 + 10)))
    assert.equal(big.error.statusCode, '413')
    assert.equal(big.error.message, 'The object exceeded the maximum allowed size')
    const gif = await admin.storage
      .from('product-images')
      .upload(`a-${Date.now()}.gif`, file(Buffer.from('GIF89a....'), 'a.gif', 'image/gif'))
    assert.equal(gif.error.statusCode, '415')
    const exe = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(600, 1)])
    const fake = await admin.storage
      .from('product-images')
      .upload(`evil-${Date.now()}.png`, file(exe, 'evil.png'))
    assert.equal(fake.error.statusCode, '415')
    const list = await admin.storage.from('product-images').list('', { search: 'evil' })
    assert.deepEqual(list.data, [], 'nothing was stored')
  })

  test('anonymous and non-admin uploads are refused', async () => {
    const a = await anon.storage
      .from('product-images')
      .upload(`anon-${Date.now()}.png`, file(png()))
    assert.equal(a.error.statusCode, '403')
    const user = client(gw)
    await user.auth.signUp({ email: uniqueEmail('uploader'), password: 'secret123' })
    const u = await user.storage
      .from('product-images')
      .upload(`user-${Date.now()}.png`, file(png()))
    assert.equal(u.error.statusCode, '403')
    assert.match(u.error.message, /row-level security/)
    const missing = await admin.storage.from('no-such-bucket').upload('x.png', file(png()))
    assert.equal(missing.error.message, 'Bucket not found')
  })

  test('list, info, exists, signed URL, move, copy and remove', async () => {
    const dir = `folder-${Date.now()}`
    for (const n of ['b.png', 'a.png', 'sub/c.png']) {
      const r = await admin.storage
        .from('product-images')
        .upload(`${dir}/${n}`, file(png()), { cacheControl: '60' })
      assert.equal(r.error, null)
    }
    const { data: listed } = await anon.storage
      .from('product-images')
      .list(dir, { sortBy: { column: 'name', order: 'asc' } })
    assert.deepEqual(
      listed.map((e) => [e.name, e.id === null]),
      [
        ['a.png', false],
        ['b.png', false],
        ['sub', true],
      ],
    )
    const info = await admin.storage.from('product-images').info(`${dir}/a.png`)
    assert.equal(info.error, null)
    assert.equal(info.data.contentType ?? info.data.content_type, 'image/png')
    assert.equal((await admin.storage.from('product-images').exists(`${dir}/a.png`)).data, true)
    assert.equal((await admin.storage.from('product-images').exists(`${dir}/zzz.png`)).data, false)

    const signed = await admin.storage.from('product-images').createSignedUrl(`${dir}/a.png`, 60)
    assert.equal(signed.error, null)
    assert.equal((await fetch(signed.data.signedUrl)).status, 200)
    const forged = signed.data.signedUrl.replace('a.png', 'b.png')
    assert.equal((await fetch(forged)).status, 400)

    assert.equal(
      (await admin.storage.from('product-images').move(`${dir}/a.png`, `${dir}/moved.png`)).error,
      null,
    )
    assert.equal(
      (await admin.storage.from('product-images').copy(`${dir}/b.png`, `${dir}/copy.png`)).error,
      null,
    )
    const { data: after } = await admin.storage.from('product-images').list(dir)
    assert.deepEqual(after.map((e) => e.name).sort(), ['b.png', 'copy.png', 'moved.png', 'sub'])

    const removed = await admin.storage
      .from('product-images')
      .remove([`${dir}/b.png`, `${dir}/copy.png`, `${dir}/moved.png`, `${dir}/sub/c.png`])
    assert.equal(removed.error, null)
    assert.equal(removed.data.length, 4)
    const { data: empty } = await admin.storage.from('product-images').list(dir)
    assert.deepEqual(empty, [])
    const gone = await fetch(
      admin.storage.from('product-images').getPublicUrl(`${dir}/b.png`).data.publicUrl,
    )
    assert.equal(gone.status, 400)
  })

  test('buckets with the service_role key', async () => {
    const svc = client(gw, gw.serviceKey)
    const id = `bucket-${Date.now()}`
    const created = await svc.storage.createBucket(id, {
      public: false,
      fileSizeLimit: '1MB',
      allowedMimeTypes: ['text/*'],
    })
    assert.equal(created.error, null)
    const got = await svc.storage.getBucket(id)
    assert.equal(got.data.file_size_limit, 1_000_000, "storage-api's decimal megabyte")
    assert.deepEqual(got.data.allowed_mime_types, ['text/*'])
    const up = await svc.storage.from(id).upload('note.txt', 'hello', { contentType: 'text/plain' })
    assert.equal(up.error, null)
    const notEmpty = await svc.storage.deleteBucket(id)
    assert.match(notEmpty.error.message, /not empty/)
    assert.equal((await svc.storage.updateBucket(id, { public: true })).error, null)
    assert.equal(
      (await fetch(svc.storage.from(id).getPublicUrl('note.txt').data.publicUrl)).status,
      200,
    )
    assert.equal((await svc.storage.emptyBucket(id)).error, null)
    assert.equal((await svc.storage.deleteBucket(id)).error, null)
    const list = await svc.storage.listBuckets()
    assert.ok(list.data.some((b) => b.id === 'product-images'))
    const anonCreate = await anon.storage.createBucket(`anon-${Date.now()}`)
    assert.equal(anonCreate.error.statusCode, '403')
  })
}
