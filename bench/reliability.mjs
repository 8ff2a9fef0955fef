// The reliability measurements (issue 12): attacks and faults tried on real processes, with
// the figures docs/RELIABILITY.md reports. The fault tests (cli/tests/it/faults.rs,
// hardening.rs) assert the behaviour; this measures it. `--quick` runs each step small.
import { execFileSync } from 'node:child_process'
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  chmodSync,
  existsSync,
} from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startGateway as launch } from '../tests/support/gateway.mjs'
import { postmasterPid, psql } from './lib.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const quick = process.argv.includes('--quick')
const profile = process.env.BENCH_PROFILE ?? (quick ? 'debug' : 'release')
const bin = join(root, 'target', profile, 'supagate')
const log = (...a) => console.error('[reliability]', ...a)
const round = (x, d = 0) => Math.round(x * 10 ** d) / 10 ** d
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const work = mkdtempSync(join(tmpdir(), 'supagate-reliability-'))
chmodSync(work, 0o755)
const results = { date: new Date().toISOString(), quick, profile, rows: [] }
let n = 0
const start = (args = [], env = {}) =>
  launch({ binary: bin, dataDir: join(work, `d${n++}`), args, env })

/** One HTTP request (from `localAddress`), with its time; never throws. */
function request(url, { method = 'GET', headers = {}, body, localAddress, timeout = 30000 } = {}) {
  return new Promise((res) => {
    const t0 = performance.now()
    const req = http.request(url, { method, headers, localAddress, timeout }, (r) => {
      let text = ''
      r.on('data', (c) => (text += c))
      r.on('end', () =>
        res({ status: r.statusCode, ms: performance.now() - t0, text, headers: r.headers }),
      )
    })
    req.on('error', (e) => res({ status: 0, ms: performance.now() - t0, text: String(e) }))
    req.on('timeout', () => req.destroy(new Error('timeout')))
    if (body) req.write(body)
    req.end()
  })
}
const key = (gw, k = gw.anonKey) => ({ apikey: k, authorization: `Bearer ${k}` })
const row = (attack, result, figure) => {
  results.rows.push({ attack, result, figure })
  log(`${attack}: ${result} (${figure})`)
}

/** Private memory (RssAnon) of the API's backends, in MB. */
function backendsMb(gw) {
  const pids = psql(gw, "SELECT pid FROM pg_stat_activity WHERE usename = 'authenticator'")
    .split('\n')
    .filter(Boolean)
  let kb = 0
  for (const pid of pids) {
    try {
      kb += Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/RssAnon:\s+(\d+)/)[1])
    } catch {}
  }
  return { mb: round(kb / 1024, 1), backends: pids.length }
}

async function distinctShapes(count, cache) {
  const gw = await start(['--statement-cache', String(cache), '--db-pool', '4'], {
    MAX_CLIENT_QUERIES: '0',
  })
  const h = key(gw)
  for (let i = 0; i < 8; i++)
    await request(`${gw.url}/rest/v1/categories?select=name`, { headers: h })
  const before = backendsMb(gw)
  let next = 0
  let failed = 0
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const i = next++
        const r = await request(`${gw.url}/rest/v1/categories?select=u${i}:name&limit=1`, {
          headers: h,
        })
        if (r.status !== 200) failed++
      }
    }),
  )
  const after = backendsMb(gw)
  await gw.stop()
  return { before, after, failed }
}

// ------------------------------------------------------------------ 1. memory
// Quick mode: enough shapes to pass the 256-statement LRU, not enough to take a minute.
const shapes = quick ? 600 : 20000
// Attack requests in flight per address (each holds a connection until anon's timeout).
const ATTACKS = quick ? 6 : 20
log(`memory: ${shapes} distinct query shapes`)
const unbounded = await distinctShapes(shapes, 1_000_000)
const bounded = await distinctShapes(shapes, 256)
results.memory = { shapes, unbounded, bounded }
row(
  `${shapes.toLocaleString('en')} distinct query shapes (\`select=u<i>:name\`), statement cache unbounded (as before)`,
  `backends grow`,
  `${unbounded.before.mb} → ${unbounded.after.mb} MB private memory over ${unbounded.after.backends} backends`,
)
row(
  `the same with the per-connection LRU (256, the default)`,
  `bounded`,
  `${bounded.before.mb} → ${bounded.after.mb} MB; ${bounded.failed} requests failed`,
)

// ------------------------------------------------------------------ 2. regex abuse
async function regexAbuse(args, from = ['127.0.0.1']) {
  const gw = await start(args)
  psql(gw, "UPDATE public.products SET description = repeat('x', 60) || 'z'")
  const pattern = encodeURIComponent(`match.${'(.*)'.repeat(7)}\\7\\6\\5\\4\\3\\2\\1x`)
  const attack = from.flatMap((localAddress) =>
    Array.from({ length: ATTACKS }, () =>
      request(`${gw.url}/rest/v1/products?select=id&description=${pattern}`, {
        headers: key(gw),
        localAddress,
      }),
    ),
  )
  await sleep(300)
  const [read, signIn] = await Promise.all([
    request(`${gw.url}/rest/v1/categories?select=name`, {
      headers: key(gw),
      localAddress: '127.0.0.9',
    }),
    request(`${gw.url}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { apikey: gw.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'bloom-admin-123' }),
      localAddress: '127.0.0.10',
    }),
  ])
  const attacks = await Promise.all(attack)
  const attackMs = Math.max(...attacks.map((a) => a.ms))
  await gw.stop()
  return { read, signIn, attackStatuses: [...new Set(attacks.map((a) => a.status))], attackMs }
}
log('regex abuse')
const fair = await regexAbuse([])
const unfair = await regexAbuse(['--max-client-queries', '0'])
const four = await regexAbuse([], ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4'])
results.regex = { fair, unfair, four }
row(
  `${ATTACKS} anonymous \`match.(.*)…\\7\\6…x\` requests in flight from one address, fair shares off`,
  `other client ${unfair.read.status}, sign-in ${unfair.signIn.status}`,
  `unrelated read ${round(unfair.read.ms)} ms, sign-in ${round(unfair.signIn.ms)} ms; each attack request ends at anon's 3 s timeout (${unfair.attackStatuses.join('/')})`,
)
row(
  'the same with fair shares (default: half the pool per address)',
  `other client ${fair.read.status}, sign-in ${fair.signIn.status}`,
  `unrelated read ${round(fair.read.ms)} ms, sign-in ${round(fair.signIn.ms)} ms; attack done after ${round(fair.attackMs / 1000, 1)} s`,
)
row(
  `${ATTACKS} such requests from each of four addresses, fair shares (one address past its first request only while half the pool is free)`,
  `other client ${four.read.status}, sign-in ${four.signIn.status}`,
  `unrelated read ${round(four.read.ms)} ms, sign-in ${round(four.signIn.ms)} ms; attack done after ${round(four.attackMs / 1000, 1)} s`,
)

// ------------------------------------------------------------------ 3. kill -9 PostgreSQL
log('kill -9 of the embedded PostgreSQL under writes')
{
  const gw = await start()
  const acked = []
  let failed = 0
  let killedAt = 0
  let backMs = null
  for (let i = 0; i < 2000 && (backMs === null || acked.length < 60); i++) {
    const slug = `fault-${i}`
    const r = await request(`${gw.url}/rest/v1/categories`, {
      method: 'POST',
      headers: { ...key(gw, gw.serviceKey), 'content-type': 'application/json' },
      body: JSON.stringify({ name: slug, slug }),
    })
    if (r.status === 201) {
      acked.push(slug)
      if (killedAt && backMs === null) backMs = performance.now() - killedAt
    } else failed++
    if (acked.length === 30 && !killedAt) {
      execFileSync('kill', ['-9', String(postmasterPid(join(gw.dataDir, 'pg')))])
      killedAt = performance.now()
    }
    await sleep(10)
  }
  const stored = new Set(
    psql(gw, "SELECT slug FROM public.categories WHERE slug LIKE 'fault-%'").split('\n'),
  )
  const lost = acked.filter((s) => !stored.has(s)).length
  await gw.stop()
  results.kill_postgres = { acked: acked.length, failed, backMs, lost }
  row(
    'kill -9 of the embedded PostgreSQL under a write every 10 ms',
    `restarted by the gateway; 503 + Retry-After meanwhile`,
    `${failed} requests failed, serving again after ${round(backMs)} ms, ${lost} of ${acked.length} acknowledged writes lost`,
  )
}

// ------------------------------------------------------------------ 4. kill -9 gateway mid-upload
log('kill -9 of the gateway mid-upload')
{
  const dataDir = join(work, 'upload')
  const gw = await launch({ binary: bin, dataDir })
  const u = new URL(gw.url)
  const sock = http.request({
    host: u.hostname,
    port: u.port,
    method: 'POST',
    path: '/storage/v1/object/product-images/stalled.png',
    headers: { ...key(gw, gw.serviceKey), 'content-type': 'image/png', 'content-length': 4 << 20 },
  })
  sock.on('error', () => {})
  const chunk = Buffer.alloc(1 << 20)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(chunk)
  sock.write(chunk)
  const versions = join(dataDir, 'storage/versions')
  for (let i = 0; i < 200 && !(existsSync(versions) && readdirSync(versions).length); i++)
    await sleep(25)
  const staged = readdirSync(versions).length
  process.kill(gw.pid, 'SIGKILL')
  sock.destroy()
  await sleep(200)
  const t0 = performance.now()
  const again = await launch({ binary: bin, dataDir })
  const readyMs = performance.now() - t0
  const rows = psql(again, "SELECT count(*) FROM storage.objects WHERE name = 'stalled.png'")
  const left = readdirSync(versions).length
  await again.stop()
  results.kill_gateway = { staged, readyMs, rows: Number(rows), left }
  row(
    'kill -9 of the gateway 1 MiB into a 4 MiB upload (its PostgreSQL left running)',
    `next start adopts the cluster and sweeps the store`,
    `ready again in ${round(readyMs)} ms; ${rows} rows, ${left} files left (${staged} staging file before)`,
  )
}

// ------------------------------------------------------------------ 5. a held pool
log('pool held by slow queries')
{
  const gw = await start([
    '--db-pool',
    '1',
    '--workers',
    '1',
    '--db-pool-timeout',
    '1',
    '--max-client-queries',
    '0',
  ])
  psql(
    gw,
    "CREATE FUNCTION public.nap(secs float8) RETURNS void LANGUAGE sql AS 'SELECT pg_sleep(secs)'",
  )
  await sleep(500)
  const busy = request(`${gw.url}/rest/v1/rpc/nap`, {
    method: 'POST',
    headers: { ...key(gw), 'content-type': 'application/json' },
    body: '{"secs":2}',
  })
  await sleep(100)
  const other = await request(`${gw.url}/rest/v1/categories?select=id&limit=1`, {
    headers: key(gw),
  })
  await busy
  const after = await request(`${gw.url}/rest/v1/categories?select=id&limit=1`, {
    headers: key(gw),
  })
  await gw.stop()
  results.pool = { other: other.status, otherMs: other.ms, after: after.status }
  row(
    'the only pooled connection held by a 2 s statement',
    `other request: ${other.status} ${JSON.parse(other.text || '{}').code ?? ''}, then ${after.status}`,
    `answered in ${round(other.ms)} ms (the pool timeout), recovered at once`,
  )
}

// ------------------------------------------------------------------ 6. hostile input
log('hostile input')
{
  const gw = await start()
  const deep = `(${'or('.repeat(2500)}id.is.null${')'.repeat(2501)})`
  const a = await request(`${gw.url}/rest/v1/products?or=${deep}`, { headers: key(gw) })
  const embeds = `${'categories('.repeat(1000)}id${')'.repeat(1000)}`
  const b = await request(`${gw.url}/rest/v1/products?select=${embeds}`, { headers: key(gw) })
  const c = await request(`${gw.url}/rest/v1/products?name=eq.${'a'.repeat(20000)}`, {
    headers: key(gw),
  })
  const alive = await request(`${gw.url}/rest/v1/categories?select=id&limit=1`, {
    headers: key(gw),
  })
  const del = await request(`${gw.url}/rest/v1/product_categories?limit=1&order=product_id`, {
    method: 'DELETE',
    headers: key(gw, gw.serviceKey),
  })
  const links = psql(gw, 'SELECT count(*) FROM public.product_categories')
  await gw.stop()
  results.input = {
    deepOr: a.status,
    deepSelect: b.status,
    longUri: c.status,
    alive: alive.status,
    limitedDelete: del.status,
    links: Number(links),
  }
  row(
    '`or=(or(or(…)))` nested 2,500 deep; `select=categories(categories(…))` 1,000 deep',
    `${a.status} / ${b.status} PGRST100, gateway alive (${alive.status})`,
    'nesting bounded at 20 before the recursive grammar',
  )
  row('a 20 KB query string', `${c.status} PGRST414`, 'limit 16 KiB')
  row(
    '`DELETE /product_categories?limit=1&order=product_id`',
    `${del.status} PGRST114`,
    `${links} of 10 rows still there`,
  )
}

rmSync(work, { recursive: true, force: true })
const out = quick ? join(root, 'target', 'reliability-quick') : join(root, 'docs')
mkdirSync(out, { recursive: true })
writeFileSync(join(out, 'reliability.json'), `${JSON.stringify(results, null, 2)}\n`)
const table = [
  '| Attack or fault | Result | Figure |',
  '|---|---|---|',
  ...results.rows.map((r) => `| ${r.attack} | ${r.result} | ${r.figure} |`),
].join('\n')
writeFileSync(
  join(out, 'reliability-table.md'),
  `Run: ${results.date} · \`bench/reliability.mjs${quick ? ' --quick' : ''}\` · ${profile} build\n\n${table}\n`,
)
log(`wrote ${join(out, 'reliability.json')} and reliability-table.md`)
