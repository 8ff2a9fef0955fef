// Memory under the REST load (issue 49 item 4): the release gateway on the shop with bench.mjs's
// 10,000-product catalogue, then wrk loads (a) by id, (b) a category listing, (d) an insert with
// return=representation (rolled back) and (e) an update by id, at 8 and 32 connections; the
// gateway's /proc/PID/status (VmHWM, VmRSS, RssAnon, RssFile) after each. Once with the request
// history on (the default) and once off (SUPAGATE_REQUEST_HISTORY=0): their difference is what
// the history holds. VmHWM is reset (clear_refs) before each load, so that a load's row shows its
// own peak; the "loaded" row's is the peak since the start (realtime's change capture reads the
// catalogue's 10,050-row transaction after the first requests: a spike of its own, ~120 MB, not
// the REST load's). A measurement tool, not a test: it prints a table and writes nothing.
// `node bench/memory.mjs [--on|--off]`; DUR=seconds per load (8); BENCH_PROFILE (release).
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startGateway, DEMO_ADMIN } from '../tests/support/gateway.mjs'
import { loadCatalogue, psql, round, TUNING, wrk } from './lib.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const bin = join(root, 'target', process.env.BENCH_PROFILE ?? 'release', 'supagate')
const DUR = Number(process.env.DUR ?? 8)
const CONNS = [8, 32]
const log = (...a) => console.error('[memory]', ...a)
const modes = process.argv.includes('--on')
  ? ['on']
  : process.argv.includes('--off')
    ? ['off']
    : ['on', 'off']

/** VmHWM, VmRSS, RssAnon and RssFile of a process, in MB. */
function status(pid) {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8')
  const mb = (key) => round(Number(s.match(new RegExp(`${key}:\\s+(\\d+)`))[1]) / 1024)
  return { hwm: mb('VmHWM'), rss: mb('VmRSS'), anon: mb('RssAnon'), file: mb('RssFile') }
}

/** One gateway, history on or off: its status after start, the catalogue and each load. */
async function measure(mode) {
  const work = mkdtempSync(join(tmpdir(), 'supagate-memory-'))
  chmodSync(work, 0o755)
  const gw = await startGateway({
    binary: bin,
    dataDir: join(work, 'data'),
    site: true,
    env: {
      // bench.mjs's tuning and limits, so that the loads are the same.
      SUPAGATE_PG_SETTINGS: TUNING,
      RATE_LIMIT_SIGN_IN: '100000000',
      DB_POOL: '32',
      MAX_CLIENT_QUERIES: '0',
      ...(mode === 'off' ? { SUPAGATE_REQUEST_HISTORY: '0' } : {}),
    },
  })
  const rows = [['idle', status(gw.pid)]]
  try {
    await loadCatalogue(gw, gw.anonKey)
    const auth = { apikey: gw.anonKey, authorization: `Bearer ${gw.anonKey}` }
    const productId = psql(gw, "SELECT id FROM public.products WHERE sku = 'B-4242'").trim()
    const catId = psql(gw, "SELECT id FROM public.categories WHERE slug = 'bench-7'").trim()
    const token = await fetch(`${gw.url}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { apikey: gw.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify(DEMO_ADMIN),
    })
    const admin = {
      apikey: gw.anonKey,
      authorization: `Bearer ${(await token.json()).access_token}`,
    }
    // Realtime's capture of the catalogue's transaction comes and goes before the loads: 3 s,
    // then until the memory it took is given back (at most 30 s more).
    await new Promise((res) => setTimeout(res, 3000))
    rows.push(['loaded', status(gw.pid)])
    for (let i = 0; i < 150 && status(gw.pid).rss > rows[0][1].rss + 15; i++)
      await new Promise((res) => setTimeout(res, 200))
    const loads = [
      {
        key: 'a',
        method: 'GET',
        path: `/rest/v1/products?select=*&id=eq.${productId}`,
        headers: auth,
      },
      {
        key: 'b',
        method: 'GET',
        path: `/rest/v1/products?select=*&is_available=eq.true&category_id=eq.${catId}&order=name.asc`,
        headers: auth,
      },
      {
        key: 'd',
        method: 'POST',
        path: '/rest/v1/categories?select=*',
        headers: {
          ...admin,
          prefer: 'return=representation, tx=rollback',
          'content-type': 'application/json',
        },
        body: '{"name":"Load","slug":"load-x","is_available":false}',
      },
      {
        key: 'e',
        method: 'PATCH',
        path: `/rest/v1/products?id=eq.${productId}`,
        headers: { ...admin, 'content-type': 'application/json' },
        body: '{"base_price":12.5}',
      },
    ]
    for (const l of loads) {
      for (const conns of CONNS) {
        writeFileSync(`/proc/${gw.pid}/clear_refs`, '5')
        const r = wrk(
          {
            url: gw.url + l.path,
            method: l.method,
            headers: l.headers,
            body: l.body,
            conns,
            dur: DUR,
          },
          { dir: work },
        )
        if (r.errors || r.non2xx)
          log(`(${l.key}) ${conns}: ${r.errors} errors, ${r.non2xx} non-2xx`)
        rows.push([`(${l.key}) ${conns}`, status(gw.pid), round(r.rps, 0)])
        log(mode, `(${l.key}) ${conns}`, JSON.stringify(rows.at(-1)))
      }
    }
  } finally {
    await gw.stop()
    rmSync(work, { recursive: true, force: true })
  }
  return rows
}

const results = {}
for (const mode of modes) results[mode] = await measure(mode)
const cell = (s) => (s ? `${s.hwm} / ${s.rss} / ${s.anon} / ${s.file}` : '')
const head = modes.map((m) => `history ${m}: HWM / RSS / anon / file (MB) | req/s`)
console.log(`| after | ${head.join(' | ')} |`)
console.log(`|---|${modes.map(() => '---|---').join('|')}|`)
for (let i = 0; i < results[modes[0]].length; i++) {
  const cells = modes.map((m) => {
    const [, s, rps] = results[m][i]
    return `${cell(s)} | ${rps ?? ''}`
  })
  console.log(`| ${results[modes[0]][i][0]} | ${cells.join(' | ')} |`)
}
for (const m of modes) {
  const peak = Math.max(...results[m].slice(2).map(([, s]) => s.hwm))
  console.log(`peak (VmHWM) under the REST loads, history ${m}: ${peak} MB`)
}
process.exit(0)
