// Realtime figures (issue 16): change-to-client latency with 100 subscribers (a table without
// RLS, and one where each subscriber is a different user and RLS is checked for each),
// broadcast latency, and the gateway memory an idle socket costs. Subscribers are raw
// WebSockets speaking Phoenix 2.0.0, so the client side costs little. Writes
// realtime.json and realtime-table.md (included in BENCHMARKS.md); `--quick` runs small.
import { spawn } from 'node:child_process'
import { createHmac } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import WebSocket from 'ws'
import { startGateway } from '../tests/support/gateway.mjs'
import { PG_BIN, psql, rssKb, spread } from './lib.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const quick = process.argv.includes('--quick')
const profile = process.env.BENCH_PROFILE ?? (quick ? 'debug' : 'release')
const bin = join(root, 'target', profile, 'supagate')
const SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long'
const SUBSCRIBERS = quick ? 10 : 100
const CHANGES = quick ? 20 : 200
const IDLE = quick ? 50 : 1000
// The throughput runs: subscribers, changes (and broadcasts) a second in the steady run, and
// in the burst.
const WIDE = quick ? 20 : 1000
const RATE = quick ? 10 : 12
const STEADY_S = quick ? 1 : 5
const BURST = quick ? 20 : 100
// How many times the steady change load runs (issue 49 judges its goal on three runs).
const REPEATS = quick ? 2 : 3
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
  return sorted.length
    ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
    : NaN
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b)
  return {
    samples: s.length,
    p50_ms: round(percentile(s, 50)),
    p99_ms: round(percentile(s, 99)),
    max_ms: round(s[s.length - 1] ?? NaN),
  }
}

/**
 * A raw Phoenix 2.0.0 socket joined to one topic; `onMessage(event, payload)`, or `onRaw(text)`
 * with each message unparsed once joined (the throughput runs, where the client's parsing would
 * cost as much CPU as the gateway's work).
 */
function socket(gw, topic, config, { accessToken, onMessage = () => {}, onRaw = null } = {}) {
  return new Promise((resolvePromise, reject) => {
    const ws = new WebSocket(
      `${gw.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${gw.anonKey}&vsn=2.0.0`,
    )
    ws.on('error', reject)
    ws.on('open', () =>
      ws.send(
        JSON.stringify([
          '1',
          '1',
          `realtime:${topic}`,
          'phx_join',
          { config, ...(accessToken ? { access_token: accessToken } : {}) },
        ]),
      ),
    )
    let joined = false
    ws.on('message', (data, binary) => {
      if (binary) return
      if (joined && onRaw) return onRaw(data.toString())
      const [, ref, , event, payload] = JSON.parse(data.toString())
      if (event === 'phx_reply' && ref === '1') {
        joined = payload.status === 'ok'
        if (joined) resolvePromise(ws)
        else reject(new Error(JSON.stringify(payload)))
        return
      }
      onMessage(event, payload)
    })
  })
}

async function rest(gw, table, row) {
  const res = await fetch(`${gw.url}/rest/v1/${table}`, {
    method: 'POST',
    headers: {
      apikey: gw.serviceKey,
      authorization: `Bearer ${gw.serviceKey}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(row),
  })
  if (res.status !== 201) throw new Error(`insert into ${table}: ${res.status} ${await res.text()}`)
}

/** Samples the gateway's RSS every 100 ms until the returned function is called; it returns the peak in MB. */
function rssPeak() {
  let peak = rssKb(gw.pid)
  const t = setInterval(() => (peak = Math.max(peak, rssKb(gw.pid))), 100)
  return () => {
    clearInterval(t)
    return round(peak / 1024)
  }
}

/** Calls `fn(n)` RATE times a second for STEADY_S seconds; returns how many times. */
async function paced(fn) {
  const start = Date.now()
  let n = 0
  for (let due = 0; Date.now() - start < STEADY_S * 1000; await sleep(20)) {
    for (due = Math.floor(((Date.now() - start) / 1000) * RATE); n < due; n++) fn(n)
  }
  return n
}

/** Waits until `done()` or `ms` without progress in `count()`. */
async function drain(done, count, ms = 5000) {
  let last = count()
  let since = Date.now()
  while (!done() && Date.now() - since < ms) {
    await sleep(50)
    if (count() !== last) [last, since] = [count(), Date.now()]
  }
}

/**
 * Changes and broadcasts to WIDE subscribers at once. Changes: each subscriber a different user
 * on a table whose RLS shows each their own rows and every one the public rows, so that every
 * change is checked against every subscriber's identity; committed at a steady rate (latency),
 * then in a burst (the most delivered a second). Broadcasts likewise, from one sender.
 */
async function throughput() {
  psql(
    gw,
    `CREATE TABLE public.feed (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, owner uuid, public boolean NOT NULL, t double precision NOT NULL);
    ALTER TABLE public.feed ENABLE ROW LEVEL SECURITY;
    CREATE POLICY "own or public" ON public.feed FOR SELECT TO authenticated USING (public OR owner = (SELECT auth.uid()));
    GRANT SELECT ON public.feed TO authenticated;
    ALTER PUBLICATION supabase_realtime ADD TABLE public.feed;`,
  )
  const ids = psql(
    gw,
    `INSERT INTO auth.users (id, instance_id, aud, role, email) SELECT gen_random_uuid(), '00000000-0000-0000-0000-000000000000', 'authenticated', 'authenticated', 'wide' || g || '@example.com' FROM generate_series(1, ${WIDE}) g RETURNING id`,
  ).split('\n')
  const out = {}
  let got = { n: 0, wrong: 0, lat: [], last: 0 }
  const receipt = (latency) => {
    got.n++
    got.last = now()
    got.lat.push(latency)
  }
  const subs = []
  for (let i = 0; i < WIDE; i += 100) {
    subs.push(
      ...(await Promise.all(
        ids.slice(i, i + 100).map((id, j) =>
          socket(
            gw,
            `feed-${i + j}`,
            { postgres_changes: [{ event: 'INSERT', schema: 'public', table: 'feed' }] },
            {
              accessToken: token({ role: 'authenticated', sub: id, aud: 'authenticated' }),
              onRaw: (text) => {
                if (!text.includes(',"postgres_changes",')) return // not the "system" message that names it
                if (text.includes('"public":false') && !text.includes(`"owner":"${id}"`))
                  got.wrong++
                receipt(now() - Number(text.match(/"t":([0-9.e+]+)/)[1]))
              },
            },
          ),
        ),
      )),
    )
  }
  await sleep(1000)
  // One psql session commits each insert on its own; t is the time of the insert.
  const feeder = spawn(
    join(PG_BIN, 'psql'),
    ['-X', '-q', '-h', join(gw.dataDir, 'pg'), '-p', '5432', '-U', 'postgres', '-d', 'postgres'],
    { stdio: ['pipe', 'ignore', 'inherit'] },
  )
  const insert = (k, pub) =>
    `INSERT INTO public.feed (owner, public, t) VALUES (${pub ? 'NULL' : `'${ids[k % ids.length]}'`}, ${pub}, extract(epoch FROM clock_timestamp()) * 1000);\n`
  const measure = async (label, run, expected) => {
    got = { n: 0, wrong: 0, lat: [], last: 0 }
    const peak = rssPeak()
    const start = now()
    const sent = await run()
    await drain(
      () => got.n >= expected(sent),
      () => got.n,
    )
    const secs = (got.last - start) / 1000
    out[label] = {
      ...stats(got.lat),
      expected: expected(sent),
      delivered_per_s: round(got.n / secs, 0),
      seconds: round(secs, 2),
      delivered_to_others: got.wrong,
      peak_rss_mb: peak(),
    }
    log(label, out[label])
  }
  // Steady: RATE public and RATE private changes a second for STEADY_S seconds, REPEATS times
  // (the table shows the first run; the spread of all is kept beside it).
  const steady = []
  for (let r = 0; r < REPEATS; r++) {
    await measure(
      r === 0 ? 'changes_steady' : 'changes_steady_again',
      () => paced((n) => feeder.stdin.write(insert(n, true) + insert(n, false))),
      (n) => n * (WIDE + 1),
    )
    steady.push(out[r === 0 ? 'changes_steady' : 'changes_steady_again'])
  }
  delete out.changes_steady_again
  const steadyRuns = {
    runs: steady.length,
    delivered_per_s: spread(
      steady.map((r) => r.delivered_per_s),
      0,
    ),
    p99_ms: spread(steady.map((r) => r.p99_ms)),
    delivered_to_others: steady.reduce((n, r) => n + r.delivered_to_others, 0),
  }
  await measure(
    'changes_burst',
    async () => {
      feeder.stdin.write(
        Array.from({ length: BURST }, (_, n) => insert(n, true) + insert(n, false)).join(''),
      )
      return BURST
    },
    (n) => n * (WIDE + 1),
  )
  feeder.stdin.end()
  for (const s of subs.splice(0)) s.terminate()
  await sleep(1500)

  // Broadcasts: the same number of subscribers on one topic, one sender.
  for (let i = 0; i < WIDE; i += 100) {
    subs.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(100, WIDE - i) }, () =>
          socket(
            gw,
            'wide',
            {},
            {
              onRaw: (text) =>
                text.includes(',"broadcast",') &&
                receipt(now() - Number(text.match(/"t":([0-9.e+]+)/)[1])),
            },
          ),
        ),
      )),
    )
  }
  const sender = await socket(gw, 'wide', {})
  subs.push(sender)
  const send = () =>
    sender.send(
      JSON.stringify([
        null,
        null,
        'realtime:wide',
        'broadcast',
        { type: 'broadcast', event: 'tick', payload: { t: now() } },
      ]),
    )
  await measure(
    'broadcast_steady',
    () => paced(send),
    (n) => n * WIDE,
  )
  await measure(
    'broadcast_burst',
    async () => {
      for (let i = 0; i < BURST; i++) send()
      return BURST
    },
    (n) => n * WIDE,
  )
  for (const s of subs) s.terminate()
  return { loads: out, steadyRuns }
}

const gw = await startGateway({
  binary: bin,
  workdir: join(root, 'tests/fixtures/notes'),
  dataDir: join(work, 'data'),
})
const results = {
  date: new Date().toISOString(),
  quick,
  profile,
  subscribers: SUBSCRIBERS,
  changes: CHANGES,
}
const sockets = []
try {
  // 1. A table without RLS: every subscriber gets every change.
  const open = []
  const lat = []
  for (let i = 0; i < SUBSCRIBERS; i++) {
    open.push(
      socket(
        gw,
        `board-${i}`,
        {
          postgres_changes: [
            { event: 'INSERT', schema: 'public', table: 'board', filter: 'room=eq.bench' },
          ],
        },
        {
          onMessage: (event, p) =>
            event === 'postgres_changes' && lat.push(now() - Number(p.data.record.body)),
        },
      ),
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
  const ids = psql(
    gw,
    `INSERT INTO auth.users (id, instance_id, aud, role, email) SELECT gen_random_uuid(), '00000000-0000-0000-0000-000000000000', 'authenticated', 'authenticated', 'bench' || g || '@example.com' FROM generate_series(1, ${SUBSCRIBERS}) g RETURNING id`,
  ).split('\n')
  const rlsLat = []
  let wrong = 0
  const users = await Promise.all(
    ids.map((id, i) =>
      socket(
        gw,
        `notes-${i}`,
        { postgres_changes: [{ event: 'INSERT', schema: 'public', table: 'notes' }] },
        {
          accessToken: token({ role: 'authenticated', sub: id, aud: 'authenticated' }),
          onMessage: (event, p) => {
            if (event !== 'postgres_changes') return
            if (p.data.record.owner !== id) wrong++
            rlsLat.push(now() - Number(p.data.record.title))
          },
        },
      ),
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
    listeners.push(
      socket(
        gw,
        'fanout',
        {},
        { onMessage: (event, p) => event === 'broadcast' && bLat.push(now() - p.payload.t) },
      ),
    )
  }
  sockets.push(...(await Promise.all(listeners)))
  const sender = await socket(gw, 'fanout', {})
  sockets.push(sender)
  for (let i = 0; i < CHANGES; i++) {
    sender.send(
      JSON.stringify([
        null,
        null,
        'realtime:fanout',
        'broadcast',
        { type: 'broadcast', event: 'tick', payload: { t: now() } },
      ]),
    )
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
    idle.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(50, IDLE - i) }, (_, j) =>
          socket(gw, `idle-${(i + j) % 20}`, {}),
        ),
      )),
    )
  }
  await sleep(2000)
  const after = rssKb(gw.pid)
  results.idle_sockets = {
    sockets: IDLE,
    rss_before_mb: round(before / 1024),
    rss_after_mb: round(after / 1024),
    kb_per_socket: round((after - before) / IDLE),
  }
  log('idle sockets', results.idle_sockets)
  for (const s of idle) s.terminate()
  await sleep(1500)

  // 5. Throughput (issue 32).
  const { loads, steadyRuns } = await throughput()
  results.throughput = loads
  results.changes_steady_runs = steadyRuns
} finally {
  for (const s of sockets) s.terminate()
  await gw.stop()
  rmSync(work, { recursive: true, force: true })
}

const out = quick ? join(root, 'target', 'bench-quick') : join(root, 'docs')
mkdirSync(out, { recursive: true })
writeFileSync(join(out, 'realtime.json'), `${JSON.stringify(results, null, 2)}\n`)
const c = (r) => `${r.samples} of ${r.expected}`
const mm = (x) => `${x.min} / ${x.median} / ${x.max}`
const table = `| measure | received | p50 ms | p99 ms | max ms |
|---|---|---|---|---|
| change → ${SUBSCRIBERS} subscribers, table without RLS (each change to all) | ${c(results.changes_public)} | ${results.changes_public.p50_ms} | ${results.changes_public.p99_ms} | ${results.changes_public.max_ms} |
| change → ${SUBSCRIBERS} subscribers, each a different user, RLS checked per subscriber (each change to its owner) | ${c(results.changes_rls)} | ${results.changes_rls.p50_ms} | ${results.changes_rls.p99_ms} | ${results.changes_rls.max_ms} |
| broadcast → ${SUBSCRIBERS} subscribers | ${c(results.broadcast)} | ${results.broadcast.p50_ms} | ${results.broadcast.p99_ms} | ${results.broadcast.max_ms} |

Changes are committed through the REST API one every 50 ms; latency runs from just before the
insert request to the subscriber's receipt (commit, the replication slot read at once after a write through the gateway,
recording, the RLS check, delivery). Changes delivered to a subscriber RLS hides them from:
${results.changes_rls.delivered_to_others}.

**Throughput** with ${WIDE} subscribers at once. Changes: each subscriber is a different user on a
table whose policy shows each their own rows and every one the public rows, so each change is
checked against all ${WIDE} identities (one query per change, as Supabase's \`apply_rls\`); a
public change is ${WIDE} deliveries, a private one 1. Committed one per transaction by one psql
session, ${RATE} public and ${RATE} private a second for ${STEADY_S} s (steady), then ${BURST} of each at once
(burst: what the gateway delivers a second at most). Broadcasts: one sender, the same subscribers
on one topic. Latency from the insert (the send) to receipt; changes committed outside the
gateway wait for the slot's next read (every 20 ms while changes flow, 100 ms when idle).

| load | delivered | deliveries/s | p50 ms | p99 ms | max ms | to others | peak RSS MB |
|---|---|---|---|---|---|---|---|
${Object.entries(results.throughput)
  .map(
    ([k, r]) =>
      `| ${k.replace('_', ', ')} | ${c(r)} | **${r.delivered_per_s}** | ${r.p50_ms} | ${r.p99_ms} | ${r.max_ms} | ${r.delivered_to_others ?? ''} | ${r.peak_rss_mb} |`,
  )
  .join('\n')}

The steady change load, ${results.changes_steady_runs.runs} runs (min / median / max): **${mm(results.changes_steady_runs.delivered_per_s)}** deliveries/s,
p99 ${mm(results.changes_steady_runs.p99_ms)} ms (goal ≥ 10,000/s with p99 < 100 ms); delivered to a
subscriber RLS hides them from, in all runs: ${results.changes_steady_runs.delivered_to_others}.

Memory: ${results.idle_sockets.sockets} idle sockets, each joined to a channel, took the gateway from
${results.idle_sockets.rss_before_mb} MB to ${results.idle_sockets.rss_after_mb} MB: **${results.idle_sockets.kb_per_socket} KB per socket**.
`
writeFileSync(join(out, 'realtime-table.md'), table)
log(`wrote ${join(out, 'realtime.json')} and realtime-table.md`)
