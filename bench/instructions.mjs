// Instructions per request (issue 32): what the gateway itself executes for one request of each
// kind, counted by callgrind (this machine has no hardware counters for `perf stat`) over a fixed
// number of requests sent on 8 keep-alive connections after a warm-up; the gateway runs under
// valgrind with instrumentation off until the warm-up starts, so its start is not counted.
// PostgreSQL and Deno run in their own processes and are not counted here. Writes
// instructions.json and instructions-table.md (included in BENCHMARKS.md) with the change against
// the previous run's figures and the by-id read's top functions; `--quick` counts a few requests
// on a debug build (it proves the harness; its figures are not comparable).
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startGateway } from '../tests/support/gateway.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const quick = process.argv.includes('--quick')
const profile = process.env.BENCH_PROFILE ?? (quick ? 'debug' : 'release')
const N = quick ? 40 : 2000
const WARM = quick ? 10 : 200
const CONNS = 8
const log = (...a) => console.error('[instructions]', ...a)
const out = quick ? join(root, 'target', 'bench-quick') : join(root, 'docs')
mkdirSync(out, { recursive: true })

const work = mkdtempSync(join(tmpdir(), 'supagate-instructions-'))
chmodSync(work, 0o755)
const wrapper = join(work, 'supagate-under-callgrind')
writeFileSync(
  wrapper,
  `#!/bin/sh\nexec valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=${work}/cg.%p ${join(root, 'target', profile, 'supagate')} "$@"\n`,
)
chmodSync(wrapper, 0o755)
const gw = await startGateway({
  binary: wrapper,
  env: { RATE_LIMIT_SIGN_IN: '100000000', DENO_BIN: process.env.DENO_BIN ?? 'deno' },
})
const control = (...args) =>
  execFileSync('callgrind_control', [...args, String(gw.pid)], { encoding: 'utf8' })

const agent = new http.Agent({ keepAlive: true, maxSockets: CONNS })
const u = new URL(gw.url)
/** Sends `n` requests, `CONNS` at a time; every answer must have the expected status. */
async function send(s, n) {
  let next = 0
  const one = () =>
    new Promise((res, rej) => {
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          method: s.method,
          path: s.path,
          headers: s.headers,
          agent,
        },
        (r) => {
          r.resume()
          r.on('end', () =>
            s.ok(r.statusCode) ? res() : rej(new Error(`${s.name}: ${r.statusCode}`)),
          )
        },
      )
      req.on('error', rej)
      req.end(s.body)
    })
  await Promise.all(
    Array.from({ length: CONNS }, async () => {
      while (next < n) {
        next++
        await one()
      }
    }),
  )
}

/** The instructions counted since the last zeroing, read from a dump. */
function dumped() {
  const before = new Set(readdirSync(work))
  control('--dump')
  let file
  for (let i = 0; i < 1000 && !file; i++) {
    file = readdirSync(work).find((f) => f.startsWith('cg.') && !before.has(f))
    if (!file) execFileSync('sleep', ['0.01'])
  }
  const text = readFileSync(join(work, file), 'utf8')
  const total = Number((text.match(/^(?:summary|totals): (\d+)/m) ?? [])[1])
  return { file: join(work, file), total }
}

const json = (r) => r.json()
const anon = { apikey: gw.anonKey, authorization: `Bearer ${gw.anonKey}` }
const productId = (
  await fetch(`${gw.url}/rest/v1/products?select=id&limit=1`, { headers: anon }).then(json)
)[0].id
const categoryId = (
  await fetch(`${gw.url}/rest/v1/categories?select=id&limit=1`, { headers: anon }).then(json)
)[0].id
const token = (
  await fetch(`${gw.url}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: gw.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'bloom-admin-123' }),
  }).then(json)
).access_token
const admin = { apikey: gw.anonKey, authorization: `Bearer ${token}` }
const success = (s) => s >= 200 && s < 300

const scenarios = [
  {
    key: 'a',
    name: 'one product by id',
    method: 'GET',
    path: `/rest/v1/products?select=*&id=eq.${productId}`,
    headers: anon,
    ok: success,
  },
  {
    key: 'b',
    name: 'category listing (available, by name)',
    method: 'GET',
    path: `/rest/v1/products?select=*&is_available=eq.true&category_id=eq.${categoryId}&order=name.asc`,
    headers: anon,
    ok: success,
  },
  {
    key: 'c',
    name: 'HEAD with count=exact',
    method: 'HEAD',
    path: '/rest/v1/products?select=*',
    headers: { ...anon, prefer: 'count=exact' },
    ok: success,
  },
  // The closure's day is the same each time: the insert fails on its key after the first, which
  // still runs the whole request; `on_conflict` makes it an upsert so every one succeeds.
  {
    key: 'd',
    name: 'insert one row, return=representation',
    method: 'POST',
    path: '/rest/v1/shop_closures?on_conflict=day&select=*',
    headers: {
      ...admin,
      prefer: 'return=representation,resolution=merge-duplicates',
      'content-type': 'application/json',
    },
    body: '{"day":"2040-01-01","note":"Bench"}',
    ok: success,
  },
  {
    key: 'e',
    name: 'update one row by id',
    method: 'PATCH',
    path: `/rest/v1/products?id=eq.${productId}`,
    headers: { ...admin, 'content-type': 'application/json' },
    body: '{"base_price":12.5}',
    ok: success,
  },
  {
    key: 'auth',
    name: "token refresh refused (a used token: GoTrue's checks, no bcrypt)",
    method: 'POST',
    path: '/auth/v1/token?grant_type=refresh_token',
    headers: { apikey: gw.anonKey, 'content-type': 'application/json' },
    body: '{"refresh_token":"not-a-token"}',
    ok: (s) => s === 400,
  },
  {
    key: 'function',
    name: 'Edge Function call (robots.txt of site-meta)',
    method: 'GET',
    path: '/functions/v1/site-meta/robots.txt',
    headers: anon,
    ok: success,
  },
]

const previous = existsSync(join(out, 'instructions.json'))
  ? JSON.parse(readFileSync(join(out, 'instructions.json'), 'utf8'))
  : null
const results = { date: new Date().toISOString(), quick, profile, requests: N, rows: [], top: [] }
control('--instr=on')
for (const s of scenarios) {
  await send(s, WARM)
  control('--zero')
  await send(s, N)
  const { file, total } = dumped()
  if (process.env.INSTRUCTIONS_KEEP)
    copyFileSync(file, join(process.env.INSTRUCTIONS_KEEP, `callgrind.${s.key}`))
  const per = Math.round(total / N)
  const before = previous?.rows.find((r) => r.key === s.key)?.per_request
  results.rows.push({
    key: s.key,
    name: s.name,
    per_request: per,
    previous: before ?? null,
    change: before ? Math.round(((per - before) / before) * 1000) / 10 : null,
  })
  log(`${s.key}: ${per.toLocaleString('en-US')} instructions per request`)
  if (s.key === 'a') {
    const annotated = execFileSync('callgrind_annotate', [file], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    })
    results.top = annotated
      .split('\n')
      .map((l) => l.match(/^\s*([\d,]+) \(\s*([\d.]+)%\)\s+(.*?)(?: \[.*\])?$/))
      .filter((m) => m && !m[3].includes('PROGRAM TOTALS'))
      .slice(0, 12)
      .map((m) => ({
        share: Number(m[2]),
        per_request: Math.round(Number(m[1].replaceAll(',', '')) / N),
        function: m[3].replace(/^(\?\?\?|[^ ]*\.[A-Za-z]+):(?!:)/, '').slice(0, 110),
      }))
  }
}
agent.destroy()
await gw.stop()
rmSync(work, { recursive: true, force: true })

writeFileSync(join(out, 'instructions.json'), `${JSON.stringify(results, null, 2)}\n`)
const fmt = (n) => (n === null ? '—' : n.toLocaleString('en-US'))
const table = `Gateway instructions per request, counted by callgrind over ${N} requests on ${CONNS} connections (${profile} build${quick ? ', quick: not comparable' : ''}; PostgreSQL and Deno not counted):

| | request | instructions per request | previous run | change |
|---|---|---|---|---|
${results.rows.map((r) => `| ${r.key} | ${r.name} | ${fmt(r.per_request)} | ${fmt(r.previous)} | ${r.change === null ? '—' : `${r.change > 0 ? '+' : ''}${r.change} %`} |`).join('\n')}

Where (a)'s instructions go (callgrind's top functions, self cost):

| share | per request | function |
|---|---|---|
${results.top.map((t) => `| ${t.share} % | ${fmt(t.per_request)} | \`${t.function.replaceAll('|', '\\|')}\` |`).join('\n')}
`
writeFileSync(join(out, 'instructions-table.md'), table)
log(`wrote ${join(out, 'instructions.json')} and instructions-table.md`)
