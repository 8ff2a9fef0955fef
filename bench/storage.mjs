// Storage figures (issue 15): a resumable (tus) upload against a plain one of the same file,
// and image transformations: the first rendering of a large photo-like image (decode, resize,
// encode), the cached one, several at once, and how fast a decompression bomb is refused.
// The gateway runs SUPAGATE_BIN (bench/run sets the build). Writes storage.json and
// storage-table.md (included in BENCHMARKS.md); `--quick` runs small.
import { mkdirSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { join, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startGateway } from '../tests/support/gateway.mjs'
import { bombPng, noisePng } from '../tests/support/png.mjs'
import { round, withPeakRss } from './lib.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const quick = process.argv.includes('--quick')
const log = (...a) => console.error('[storage]', ...a)
const results = {
  date: new Date().toISOString(),
  quick,
  binary: process.env.SUPAGATE_BIN ?? 'target/debug/supagate',
  uploads: [],
  render: {},
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
async function timed(fn) {
  const t = performance.now()
  await fn()
  return performance.now() - t
}

const gw = await startGateway({ env: { STORAGE_FILE_SIZE_LIMIT: String(200 << 20) } })
try {
  const auth = { apikey: gw.serviceKey, authorization: `Bearer ${gw.serviceKey}` }
  const ok = async (res) => {
    if (!res.ok) throw new Error(`${res.status} ${await res.text()}`)
    return res
  }
  await ok(
    await fetch(`${gw.url}/storage/v1/bucket`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'bench', public: true }),
    }),
  )

  // ---------------------------------------------------------------- plain and resumable uploads
  const CHUNK = 6 << 20
  for (const mb of quick ? [8] : [8, 64]) {
    log(`uploads of ${mb} MB`)
    const body = randomBytes(mb << 20)
    const reps = quick ? 1 : 3
    const plain = []
    const [, plainPeak] = await withPeakRss(gw.pid, async () => {
      for (let i = 0; i < reps; i++) {
        plain.push(
          await timed(async () =>
            ok(
              await fetch(`${gw.url}/storage/v1/object/bench/plain-${mb}-${i}.bin`, {
                method: 'POST',
                headers: { ...auth, 'content-type': 'application/octet-stream' },
                body,
              }),
            ),
          ),
        )
      }
    })
    const tus = []
    const [, tusPeak] = await withPeakRss(gw.pid, async () => {
      for (let i = 0; i < reps; i++) {
        tus.push(
          await timed(async () => {
            const meta = `bucketName ${Buffer.from('bench').toString('base64')},objectName ${Buffer.from(`tus-${mb}-${i}.bin`).toString('base64')}`
            const head = { ...auth, 'tus-resumable': '1.0.0' }
            const made = await ok(
              await fetch(`${gw.url}/storage/v1/upload/resumable`, {
                method: 'POST',
                headers: { ...head, 'upload-length': String(body.length), 'upload-metadata': meta },
              }),
            )
            const loc = made.headers.get('location')
            for (let off = 0; off < body.length; off += CHUNK) {
              await ok(
                await fetch(loc, {
                  method: 'PATCH',
                  headers: {
                    ...head,
                    'upload-offset': String(off),
                    'content-type': 'application/offset+octet-stream',
                  },
                  body: body.subarray(off, off + CHUNK),
                }),
              )
            }
          }),
        )
      }
    })
    results.uploads.push({
      size_mb: mb,
      chunk_mb: CHUNK >> 20,
      plain_mb_s: round(mb / (median(plain) / 1000)),
      tus_mb_s: round(mb / (median(tus) / 1000)),
      plain_peak_rss_mb: plainPeak,
      tus_peak_rss_mb: tusPeak,
    })
  }

  // ---------------------------------------------------------------- image transformations
  const [w, h] = quick ? [800, 600] : [2000, 1500]
  log(`renders of a ${w}×${h} image`)
  const source = noisePng(w, h, randomBytes)
  await ok(
    await fetch(`${gw.url}/storage/v1/object/bench/photo.png`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'image/png' },
      body: source,
    }),
  )
  const url = (q) => `${gw.url}/storage/v1/render/image/public/bench/photo.png?${q}`
  const get = async (q, accept = '*/*') =>
    Buffer.from(await (await ok(await fetch(url(q), { headers: { accept } }))).arrayBuffer())
  let firstBytes = 0
  const [first, firstPeak] = await withPeakRss(gw.pid, async () =>
    timed(async () => {
      firstBytes = (await get('width=400')).length
    }),
  )
  const firstWebp = await timed(() => get('width=400', 'image/webp'))
  const cached = []
  for (let i = 0; i < (quick ? 5 : 30); i++) cached.push(await timed(() => get('width=400')))
  const parallel = quick ? 2 : 6
  const [together, parallelPeak] = await withPeakRss(gw.pid, async () =>
    timed(() =>
      Promise.all(
        Array.from({ length: parallel }, (_, i) => get(`width=${300 + i}&height=${200 + i}`)),
      ),
    ),
  )
  await ok(
    await fetch(`${gw.url}/storage/v1/object/bench/bomb.png`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'image/png' },
      body: bombPng(),
    }),
  )
  const refused = await timed(async () => {
    const r = await fetch(`${gw.url}/storage/v1/render/image/public/bench/bomb.png?width=10`)
    if (r.status !== 400) throw new Error(`a decompression bomb answered ${r.status}`)
    await r.arrayBuffer()
  })
  results.render = {
    source: `${w}×${h} PNG of noise, ${round(source.length / 2 ** 20)} MB`,
    first_ms: round(first, 0),
    first_webp_ms: round(firstWebp, 0),
    output_kb: round(firstBytes / 1024),
    cached_p50_ms: round(median(cached)),
    parallel,
    parallel_total_ms: round(together, 0),
    first_peak_rss_mb: firstPeak,
    parallel_peak_rss_mb: parallelPeak,
    bomb_refused_ms: round(refused),
  }
} finally {
  await gw.stop()
}

const r = results.render
const table = `Resumable uploads (tus, ${results.uploads[0].chunk_mb} MB chunks, one client, sequential) against a plain upload of the same file, local files:

| file | plain MB/s | tus MB/s | peak RSS plain MB | peak RSS tus MB |
|---|---|---|---|---|
${results.uploads.map((u) => `| ${u.size_mb} MB | ${u.plain_mb_s} | ${u.tus_mb_s} | ${u.plain_peak_rss_mb} | ${u.tus_peak_rss_mb} |`).join('\n')}

Image transformations of a ${r.source} to width 400 (\`/render/image/public\`):

| measure | value |
|---|---|
| first rendering, PNG out | ${r.first_ms} ms (${r.output_kb} KB) |
| first rendering, WebP out | ${r.first_webp_ms} ms |
| cached rendering, p50 | ${r.cached_p50_ms} ms |
| ${r.parallel} different renderings at once | ${r.parallel_total_ms} ms in all |
| peak gateway RSS, one rendering / ${r.parallel} at once | ${r.first_peak_rss_mb} / ${r.parallel_peak_rss_mb} MB |
| a 100,000 × 100,000 PNG refused in | ${r.bomb_refused_ms} ms |
`
const out = quick ? join(root, 'target', 'bench-quick') : join(root, 'docs')
mkdirSync(out, { recursive: true })
writeFileSync(join(out, 'storage.json'), JSON.stringify(results, null, 2))
writeFileSync(join(out, 'storage-table.md'), table)
console.log(table)
