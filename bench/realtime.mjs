// Realtime figures (issue 16): change-to-client latency with 100 subscribers (a table without
// RLS, and one where each subscriber is a different user and RLS is checked for each),
// broadcast latency, and the gateway memory an idle socket costs. Subscribers are raw
// WebSockets speaking Phoenix 2.0.0, so the client side costs little. Writes
// realtime.json and realtime-table.md (included in BENCHMARKS.md); `--quick` runs small.
import { execFileSync } from 'node:child_process'
import { createHmac } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import WebSocket from 'ws'
import { startGateway } from '../tests/support/gateway.mjs'
import { rssKb } from './lib.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const quick = process.argv.includes('--quick')
const profile = process.env.BENCH_PROFILE ?? (quick ? 'debug' : 'release')
const bin = join(root, 'target', profile, 'supagate')
const PG_BIN = execFileSync('sh', ['-c', 'ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1']).toString().trim()
const SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long'
const SUBSCRIBERS = quick ? 10 : 100
const CHANGES = quick ? 20 : 200
const IDLE = quick ? 50 : 1000
const log = (...a) => console.error('[realtime]', ...a)
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const now = () => performance.timeOrigin + performance.now()
const work = mkdtempSync(join(tmpdir(), 'supagate-realtime-bench-'))
chmodSync(work, 0o755)

function token(claims) {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ exp: Math.floor(Date.now() / 1000) + 3600, ...claims })}`
  return `${body}.${createHmac('sha256', SECRET).update(body).digest('base64url')}`
}

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b)
  return { samples: s.length, p50_ms: round(percentile(s, 50)), p99_ms: round(percentile(s, 99)), max_ms: round(s[s.length - 1] ?? NaN) }
}

/** A raw Phoenix 2.0.0 socket joined to one topic; `onMessage(event, payload)`. */
function socket(gw, topic, config, { accessToken, onMessage = () => {} } = {}) {
  return new Promise((resolvePromise, reject) => {
    const ws = new WebSocket(`${gw.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${gw.anonKey}&vsn=2.0.0`)
    ws.on('error', reject)
    ws.on('open', () => ws.send(JSON.stringify(['1', '1', `realtime:${topic}`, 'phx_join', { config, ...(accessToken ? { access_token: accessToken } : {}) }])))
    ws.on('message', (data, binary) => {
      if (binary) return
      const [, ref, , event, payload] = JSON.parse(data.toString())
      if (event === 'phx_reply' && ref === '1') {
        if (payload.status === 'ok') resolvePromise(ws)
        else reject(new Error(JSON.stringify(payload)))
        return
      }
      onMessage(event, payload)
    })
  })
}

const psql = (gw, sql) =>
  execFileSync(join(PG_BIN, 'psql'), ['-X', '-q', '-t', '-A', '-h', join(gw.dataDir, 'pg'), '-p', '5432', '-U', 'postgres', '-d', 'postgres', '-c', sql], { encoding: 'utf8' }).trim()

async function rest(gw, table, row) {
  const res = await fetch(`${gw.url}/rest/v1/${table}`, {
    method: 'POST',
    headers: { apikey: gw.serviceKey, authorization: `Bearer ${gw.serviceKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(row),
  })
  if (res.status !== 201) throw new Error(`insert into ${table}: ${res.status} ${await res.text()}`)
}

const gw = await startGateway({ binary: bin, workdir: join(root, 'tests/fixtures/notes'), dataDir: join(work, 'data') })
const results = { date: new Date().toISOString(), quick, profile, subscribers: SUBSCRIBERS, changes: CHANGES }
const sockets = []
try {
  // 1. A table without RLS: every subscriber gets every change.
  const open = []
  const lat = []
  for (let i = 0; i < SUBSCRIBERS; i++) {
    open.push(
      socket(gw, `board-${i}`, { postgres_changes: [{ event: 'INSERT', schema: 'public', table: 'board', filter: 'room=eq.bench' }] }, {
        onMessage: (event, p) => event === 'postgres_changes' && lat.push(now() - Number(p.data.record.body)),
      }),
    )
  }
  sockets.push(...(await Promise.all(open)))
  await sleep(1000)
  for (let i = 0; i < CHANGES; i++) {
    await rest(gw, 'board', { room: 'bench', body: String(now()) })
    await sleep(50)
  }
  await sleep(2000)
  results.changes_public = { ...stats(lat), expected: SUBSCRIBERS * CHANGES }
  log('changes, no RLS', results.changes_public)

  // 2. Each subscriber a different user; RLS lets each see only their own notes.
  const ids = psql(gw, `INSERT INTO auth.users (id, instance_id, aud, role, email) SELECT gen_random_uuid(), '00000000-0000-0000-0000-000000000000', 'authenticated', 'authenticated', 'bench' || g || '@example.com' FROM generate_series(1, ${SUBSCRIBERS}) g RETURNING id`).split('\n')
  const rlsLat = []
  let wrong = 0
  const users = await Promise.all(
    ids.map((id, i) =>
      socket(gw, `notes-${i}`, { postgres_changes: [{ event: 'INSERT', schema: 'public', table: 'notes' }] }, {
        accessToken: token({ role: 'authenticated', sub: id, aud: 'authenticated' }),
        onMessage: (event, p) => {
          if (event !== 'postgres_changes') return
          if (p.data.record.owner !== id) wrong++
          rlsLat.push(now() - Number(p.data.record.title))
        },
      }),
    ),
  )
  sockets.push(...users)
  await sleep(1000)
  for (let i = 0; i < CHANGES; i++) {
    await rest(gw, 'notes', { owner: ids[i % ids.length], title: String(now()) })
    await sleep(50)
  }
  await sleep(2000)
  results.changes_rls = { ...stats(rlsLat), expected: CHANGES, delivered_to_others: wrong }
  log('changes, RLS per subscriber', results.changes_rls)

  // 3. Broadcast: one sender, every subscriber of the topic receives.
  const bLat = []
  const listeners = []
  for (let i = 0; i < SUBSCRIBERS; i++) {
    listeners.push(socket(gw, 'fanout', {}, { onMessage: (event, p) => event === 'broadcast' && bLat.push(now() - p.payload.t) }))
  }
  sockets.push(...(await Promise.all(listeners)))
  const sender = await socket(gw, 'fanout', {})
  sockets.push(sender)
  for (let i = 0; i < CHANGES; i++) {
    sender.send(JSON.stringify([null, null, 'realtime:fanout', 'broadcast', { type: 'broadcast', event: 'tick', payload: { t: now() } }]))
    await sleep(20)
  }
  await sleep(1000)
  results.broadcast = { ...stats(bLat), expected: SUBSCRIBERS * CHANGES }
  log('broadcast', results.broadcast)
  for (const s of sockets.splice(0)) s.terminate()
  await sleep(1500)

  // 4. Memory per idle socket (joined to a channel, heartbeats only).
  const before = rssKb(gw.pid)
  const idle = []
  for (let i = 0; i < IDLE; i += 50) {
    idle.push(...(await Promise.all(Array.from({ length: Math.min(50, IDLE - i) }, (_, j) => socket(gw, `idle-${(i + j) % 20}`, {})))))
  }
  await sleep(2000)
  const after = rssKb(gw.pid)
  results.idle_sockets = { sockets: IDLE, rss_before_mb: round(before / 1024), rss_after_mb: round(after / 1024), kb_per_socket: round((after - before) / IDLE) }
  log('idle sockets', results.idle_sockets)
  for (const s of idle) s.terminate()
} finally {
  for (const s of sockets) s.terminate()
  await gw.stop()
  rmSync(work, { recursive: true, force: true })
}

const out = quick ? join(root, 'target', 'bench-quick') : join(root, 'docs')
mkdirSync(out, { recursive: true })
writeFileSync(join(out, 'realtime.json'), JSON.stringify(results, null, 2) + '\n')
const c = (r) => `${r.samples} of ${r.expected}`
const table = `| measure | received | p50 ms | p99 ms | max ms |
|---|---|---|---|---|
| change → ${SUBSCRIBERS} subscribers, table without RLS (each change to all) | ${c(results.changes_public)} | ${results.changes_public.p50_ms} | ${results.changes_public.p99_ms} | ${results.changes_public.max_ms} |
| change → ${SUBSCRIBERS} subscribers, each a different user, RLS checked per subscriber (each change to its owner) | ${c(results.changes_rls)} | ${results.changes_rls.p50_ms} | ${results.changes_rls.p99_ms} | ${results.changes_rls.max_ms} |
| broadcast → ${SUBSCRIBERS} subscribers | ${c(results.broadcast)} | ${results.broadcast.p50_ms} | ${results.broadcast.p99_ms} | ${results.broadcast.max_ms} |

Changes are committed through the REST API one every 50 ms; latency runs from just before the
insert request to the subscriber's receipt (commit, the replication slot polled every 100 ms,
recording, the RLS check, delivery). Changes delivered to a subscriber RLS hides them from:
${results.changes_rls.delivered_to_others}.

Memory: ${results.idle_sockets.sockets} idle sockets, each joined to a channel, took the gateway from
${results.idle_sockets.rss_before_mb} MB to ${results.idle_sockets.rss_after_mb} MB: **${results.idle_sockets.kb_per_socket} KB per socket**.
`
writeFileSync(join(out, 'realtime-table.md'), table)
log(`wrote ${join(out, 'realtime.json')} and realtime-table.md`)
