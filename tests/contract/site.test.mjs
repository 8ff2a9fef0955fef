// The built site as the gateway serves it: the build's brotli and gzip copies chosen by
// Accept-Encoding (bytes on the wire measured, not decoded), fonts never compressed again, and
// every page path answered with the index.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { startGateway, repoRoot } from '../support/gateway.mjs'

const dist = join(repoRoot, 'frontend/dist')
let gw
before(async () => {
  gw = await startGateway({ site: true })
})
after(async () => {
  await gw?.stop()
})

/** GET `path` with `accept-encoding` (none when null): status, headers and the raw body. */
function get(path, encoding) {
  return new Promise((resolve, reject) => {
    const headers = encoding === null ? {} : { 'accept-encoding': encoding }
    http
      .get(`${gw.url}${path}`, { headers }, (res) => {
        const chunks = []
        res.on('data', (c) => chunks.push(c))
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }),
        )
      })
      .on('error', reject)
  })
}

test('scripts go out as the build compressed them, by what the browser accepts', async () => {
  const index = readFileSync(join(dist, 'index.html'), 'utf8')
  const main = index.match(/src="(\/assets\/index-[^"]+\.js)"/)[1]
  const plain = readFileSync(join(dist, main))

  const br = await get(main, 'gzip, deflate, br, zstd')
  assert.equal(br.status, 200)
  assert.equal(br.headers['content-encoding'], 'br')
  assert.match(br.headers.vary, /\bAccept-Encoding\b/)
  assert.match(br.headers['content-type'], /javascript/)
  assert.ok(br.body.length < plain.length / 3, `${br.body.length} bytes with brotli`)
  assert.deepEqual(brotliDecompressSync(br.body), plain)

  const gz = await get(main, 'gzip')
  assert.equal(gz.headers['content-encoding'], 'gzip')
  assert.deepEqual(gunzipSync(gz.body), plain)

  const none = await get(main, null)
  assert.equal(none.headers['content-encoding'], undefined)
  assert.deepEqual(none.body, plain)
  assert.match(none.headers['cache-control'], /immutable/)
})

test('fonts are sent as they are, never compressed again', async () => {
  const font = readdirSync(join(dist, 'assets')).find((f) => f.endsWith('.woff2'))
  const res = await get(`/assets/${font}`, 'gzip, br')
  assert.equal(res.status, 200)
  assert.notEqual(res.headers['content-encoding'], 'gzip')
  assert.notEqual(res.headers['content-encoding'], 'br')
  assert.deepEqual(res.body, readFileSync(join(dist, 'assets', font)))
})

test('a page path gets the index with the config script; a missing asset is a 404', async () => {
  const page = await get('/occasions/plants', null)
  assert.equal(page.status, 200)
  assert.match(page.body.toString(), /<script src="\/__supagate\/config\.js"><\/script>/)
  assert.equal((await get('/assets/nope-123.js', 'br')).status, 404)
})

test("the site's scripts come only from its own origin and the store widget's own hosts", async () => {
  const headers = readFileSync(join(repoRoot, 'frontend/public/_headers'), 'utf8')
  const policies = headers
    .split('\n')
    .filter((l) => l.trim().startsWith('Content-Security-Policy:'))
  assert.ok(policies.length >= 1)
  for (const policy of policies) {
    const script =
      policy
        .split(';')
        .map((d) => d.trim())
        .find((d) => d.startsWith('script-src')) ?? ''
    // A wildcard over a shared hosting service lets anyone's script run on the shop's pages.
    for (const source of script.split(/\s+/).slice(1)) {
      assert.ok(
        !/^https?:$|^\*$|\*\.(cloudfront\.net|amazonaws\.com|github\.io|netlify\.app|vercel\.app)$/.test(
          source,
        ),
        `${source} in ${script}`,
      )
    }
  }
})
