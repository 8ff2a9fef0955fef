// The scale-out topology on real parts: one PostgreSQL, SeaweedFS as the object store, three
// supagate replicas serving the shop, HAProxy in front (tests/cluster/topology.mjs). What a shop
// that outgrew one process relies on: any replica answers any request (sessions, refresh tokens,
// signed URLs, rate limits, realtime), DDL reaches every schema cache, a replica killed under
// load costs no acknowledged write, and a PostgreSQL restart heals every replica by itself.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import {
  mkdtempSync,
  chmodSync,
  readFileSync,
  existsSync,
  cpSync,
  mkdirSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@supabase/supabase-js'
import WebSocket from 'ws'
import { startCluster } from './topology.mjs'
import { loadWithKill } from './load.mjs'
import { until } from '../support/wait.mjs'
import { repoRoot } from '../support/gateway.mjs'

const ADMIN = { email: 'admin@example.com', password: 'bloom-admin-123' }
const dir = mkdtempSync(join(tmpdir(), 'supagate-cluster-'))
chmodSync(dir, 0o755)
let cl
let r1, r2, r3
const realtimeClients = []

// The shop's project, copied, with one Edge Function more (the repository's folder stays as it is).
const workdir = join(dir, 'project')
cpSync(join(repoRoot, 'supabase'), join(workdir, 'supabase'), { recursive: true })
mkdirSync(join(workdir, 'supabase/functions/whoami'), { recursive: true })
writeFileSync(
  join(workdir, 'supabase/functions/whoami/index.ts'),
  `Deno.serve((req) => Response.json({ pid: Deno.pid, url: Deno.env.get('SUPABASE_URL'), auth: req.headers.has('authorization') }))\n`,
)

before(async () => {
  cl = await startCluster({ dir, workdir })
  ;[r1, r2, r3] = cl.replicas
  await cl.settled()
})

after(async () => {
  for (const c of realtimeClients) await c.removeAllChannels()
  await cl?.stop()
  // Logs stay for a look when something failed.
  if (process.exitCode) console.log(`cluster logs kept in ${dir}`)
  else cl?.remove()
})

function headers(key, extra = {}) {
  return { apikey: key, authorization: `Bearer ${key}`, ...extra }
}

async function json(res) {
  const text = await res.text()
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const service = (extra) => headers(cl.serviceKey, extra)
const anon = (extra) => headers(cl.anonKey, extra)

test('the balancer spreads the shop over every replica', async () => {
  const seen = new Set()
  for (let i = 0; i < 12; i++) {
    const res = await fetch(
      `${cl.url}/rest/v1/products?select=id,name&is_available=eq.true&limit=3`,
      { headers: anon() },
    )
    assert.equal(res.status, 200)
    assert.equal((await res.json()).length, 3)
    seen.add(res.headers.get('x-replica'))
  }
  assert.deepEqual([...seen].sort(), ['r1', 'r2', 'r3'])
  const site = await fetch(`${cl.url}/occasions/best-sellers`)
  assert.equal(site.status, 200)
  assert.match(await site.text(), /<div id="root">/)
})

test('an Edge Function answers through the balancer from every replica, which names the balancer as its URL', async () => {
  const client = createClient(cl.url, cl.anonKey, {
    auth: { persistSession: false },
    realtime: { transport: WebSocket },
  })
  const replicas = new Set()
  const pids = new Set()
  for (let i = 0; i < 12; i++) {
    const { data, error, response } = await client.functions.invoke('whoami', { body: {} })
    assert.equal(error, null)
    assert.deepEqual({ url: data.url, auth: data.auth }, { url: cl.url, auth: true })
    replicas.add(response.headers.get('x-replica'))
    pids.add(data.pid)
  }
  assert.deepEqual([...replicas].sort(), ['r1', 'r2', 'r3'])
  assert.equal(pids.size, 3, 'one warm Deno per replica')
})

async function password(url, { email, password: pw }, extra = {}) {
  return fetch(`${url}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: anon({ 'content-type': 'application/json', ...extra }),
    body: JSON.stringify({ email, password: pw }),
  })
}

test('a session started on one replica works on the others, and its refresh tokens rotate across them', async () => {
  const signIn = await password(r1.url, ADMIN)
  assert.equal(signIn.status, 200)
  const first = await signIn.json()
  const user = await fetch(`${r2.url}/auth/v1/user`, {
    headers: { apikey: cl.anonKey, authorization: `Bearer ${first.access_token}` },
  })
  assert.equal(user.status, 200)
  assert.equal((await user.json()).email, ADMIN.email)

  const refresh = (url, token) =>
    fetch(`${url}/auth/v1/token?grant_type=refresh_token`, {
      method: 'POST',
      headers: anon({ 'content-type': 'application/json' }),
      body: JSON.stringify({ refresh_token: token }),
    })
  const rotated = await refresh(r3.url, first.refresh_token)
  assert.equal(rotated.status, 200)
  const second = await rotated.json()
  assert.notEqual(second.refresh_token, first.refresh_token)
  // The admin's own rows, by RLS, on a third replica with the rotated token.
  const mine = await fetch(`${r1.url}/rest/v1/user_roles?select=role`, {
    headers: { apikey: cl.anonKey, authorization: `Bearer ${second.access_token}` },
  })
  assert.deepEqual(await mine.json(), [{ role: 'admin' }])

  const out = await fetch(`${r2.url}/auth/v1/logout`, {
    method: 'POST',
    headers: { apikey: cl.anonKey, authorization: `Bearer ${second.access_token}` },
  })
  assert.equal(out.status, 204)
  const revoked = await refresh(r1.url, second.refresh_token)
  assert.equal(revoked.status, 400)
  assert.match((await revoked.json()).msg ?? '', /Invalid Refresh Token/)
})

test('objects stored through one replica are served by the others, signed URLs and ranges included', async () => {
  const bucket = await fetch(`${r1.url}/storage/v1/bucket`, {
    method: 'POST',
    headers: service({ 'content-type': 'application/json' }),
    body: JSON.stringify({ name: 'cluster-private', public: false }),
  })
  assert.equal(bucket.status, 200, JSON.stringify(await json(bucket)))
  const body = 'a card for the bouquet, stored once, served by all'
  const up = await fetch(`${r2.url}/storage/v1/object/cluster-private/cards/note.txt`, {
    method: 'POST',
    headers: service({ 'content-type': 'text/plain' }),
    body,
  })
  assert.equal(up.status, 200, JSON.stringify(await json(up)))
  const sign = await fetch(`${r3.url}/storage/v1/object/sign/cluster-private/cards/note.txt`, {
    method: 'POST',
    headers: service({ 'content-type': 'application/json' }),
    body: JSON.stringify({ expiresIn: 120 }),
  })
  const { signedURL } = await sign.json()
  assert.match(signedURL, /^\/object\/sign\/cluster-private\/cards\/note\.txt\?token=/)
  const viaR1 = await fetch(`${r1.url}/storage/v1${signedURL}`)
  assert.equal(viaR1.status, 200)
  assert.equal(await viaR1.text(), body)
  const range = await fetch(`${cl.url}/storage/v1${signedURL}`, { headers: { range: 'bytes=2-5' } })
  assert.equal(range.status, 206)
  assert.equal(await range.text(), 'card')
  assert.ok((await cl.weed.keys()).length >= 1, 'the bytes are in SeaweedFS')

  const del = await fetch(`${r3.url}/storage/v1/object/cluster-private/cards/note.txt`, {
    method: 'DELETE',
    headers: service(),
  })
  assert.equal(del.status, 200)
  for (const r of cl.replicas)
    assert.equal(
      (await fetch(`${r.url}/storage/v1${signedURL}`)).status,
      400,
      `deleted object gone on ${r.name}`,
    )
})

test('sign-in limits are counted once for the whole cluster, per client address', async () => {
  // HAProxy appends the client's address to X-Forwarded-For; these requests stand in for a
  // balancer that saw one client, and go to the replicas in turn.
  const client = `10.${Math.floor(Math.random() * 250)}.7.9`
  const limit = 30 // supabase/config.toml [auth.rate_limit] sign_in_sign_ups
  const statuses = []
  for (let i = 0; i <= limit; i++) {
    const res = await password(
      cl.replicas[i % 3].url,
      { email: 'nobody@example.com', password: 'wrong-guess-1' },
      { 'x-forwarded-for': client },
    )
    statuses.push(res.status)
  }
  assert.deepEqual(statuses.slice(0, limit), Array(limit).fill(400))
  assert.equal(statuses[limit], 429)
  const other = await password(
    r2.url,
    { email: 'nobody@example.com', password: 'wrong-guess-1' },
    { 'x-forwarded-for': '10.251.0.1' },
  )
  assert.equal(other.status, 400, 'another client is not limited')
})

test('a table created by DDL is served by every replica within a second', async () => {
  const table = `ddl_probe_${Date.now()}`
  const started = Date.now()
  cl.pg.sql(
    `create table public.${table} (id int primary key, note text); insert into public.${table} values (1, 'fresh'); grant select on public.${table} to anon;`,
  )
  const arrived = await Promise.all(
    cl.replicas.map(async (r) => {
      await until(
        async () =>
          (await fetch(`${r.url}/rest/v1/${table}?select=note`, { headers: anon() })).status ===
          200,
        `${table} on ${r.name}`,
        1000,
      )
      return Date.now() - started
    }),
  )
  console.log(`# DDL reached the replicas' schema caches after ${arrived.join(', ')} ms`)
  const res = await fetch(`${cl.url}/rest/v1/${table}?select=note`, { headers: anon() })
  assert.deepEqual(await res.json(), [{ note: 'fresh' }])
})

/** Inserts a hidden category through one replica with the service key. */
async function insertCategory(replica, name, slug) {
  const res = await fetch(`${replica.url}/rest/v1/categories`, {
    method: 'POST',
    headers: service({ 'content-type': 'application/json' }),
    body: JSON.stringify({ name, slug, is_available: false }),
  })
  assert.equal(res.status, 201)
}

/** A realtime client of one replica, as the shop's admin panel has (service key here). */
function realtime(replica) {
  const c = createClient(replica.url, cl.serviceKey, {
    realtime: { transport: WebSocket, heartbeatIntervalMs: 1000 },
    auth: { persistSession: false, autoRefreshToken: false },
  })
  realtimeClients.push(c)
  return c
}

function subscribed(channel) {
  return new Promise((resolve, reject) => {
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve(channel)
      if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(err ?? new Error(status))
    })
  })
}

/** Subscribes a channel with postgres_changes bindings and waits until the server confirms them. */
async function subscribedToChanges(channel) {
  let confirmed = false
  channel.on('system', {}, (p) => {
    if (p.extension === 'postgres_changes' && p.status === 'ok') confirmed = true
  })
  await subscribed(channel)
  await until(() => confirmed, 'the changes subscription')
  return channel
}

test('a change or a broadcast reaches the clients of every replica', async () => {
  const changes = { r1: [], r2: [], r3: [] }
  const waves = { r1: [], r2: [], r3: [] }
  const channels = {}
  for (const r of cl.replicas) {
    const c = realtime(r)
    channels[r.name] = await subscribedToChanges(
      c
        .channel(`cluster-${r.name}`)
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'categories' }, (p) =>
          changes[r.name].push(p.new.slug),
        ),
    )
    channels[`lobby-${r.name}`] = await subscribed(
      c
        .channel('cluster-lobby')
        .on('broadcast', { event: 'wave' }, (m) => waves[r.name].push(m.payload.from)),
    )
  }
  const slug = `cluster-${Date.now()}`
  await insertCategory(r2, 'Cluster', slug)
  assert.equal(
    await channels['lobby-r1'].send({ type: 'broadcast', event: 'wave', payload: { from: 'r1' } }),
    'ok',
  )
  await until(
    () => ['r1', 'r2', 'r3'].every((n) => changes[n].includes(slug)),
    'the insert on every replica',
  )
  await until(
    () => waves.r2.includes('r1') && waves.r3.includes('r1'),
    'the broadcast on r2 and r3',
  )
  assert.deepEqual(waves.r1, [], 'no echo to the sender without self')
  await fetch(`${r1.url}/rest/v1/categories?slug=eq.${slug}`, {
    method: 'DELETE',
    headers: service(),
  })
})

test('kill -9 of a replica under mixed load: the balancer routes around it and no acknowledged write is lost', async () => {
  const workers = 6
  const {
    requests: log,
    killedAt,
    stored,
  } = await loadWithKill(cl, { victim: r2, workers, runMs: 7000, killAt: 2500, writeEvery: 2 })
  const acknowledged = log.filter((e) => e.write && e.ok).map((e) => e.id)
  const lost = acknowledged.filter((id) => !stored.has(id))
  const failed = log.filter((e) => !e.ok)
  const slowest = Math.max(
    ...log.filter((e) => e.start >= killedAt - 1000).map((e) => e.end - e.start),
  )
  const applied = failed.filter((e) => stored.has(e.id)).length
  console.log(
    `# ${log.length} requests, ${acknowledged.length} acknowledged writes, ${failed.length} failed (${applied} of them applied) (${failed.map((e) => `${e.write ? 'write' : 'read'} ${e.status} ${e.error ?? ''} ${e.start.toFixed(0)}–${e.end.toFixed(0)} ms`).join(', ') || 'none'}), slowest around the kill ${slowest.toFixed(0)} ms, killed at ${killedAt.toFixed(0)} ms`,
  )
  assert.deepEqual(lost, [], 'every acknowledged write is stored')
  assert.ok(acknowledged.length > 20, 'writes were made')
  assert.ok(log.filter((e) => e.start > killedAt).length > 50, 'requests went on after the kill')
  // Reads are retried by the balancer; only writes in flight on the killed replica can fail.
  assert.deepEqual(
    failed.filter((e) => !e.write),
    [],
    'no read failed',
  )
  // A write the balancer had sent to the replica as it died: its client sees the connection
  // close (the write may or may not have committed) and nothing else fails. The signal takes a
  // moment to land, hence the half second after the kill.
  assert.ok(
    failed.every((e) => e.end >= killedAt && e.start <= killedAt + 500),
    'only requests in flight at the kill failed',
  )
  assert.ok(failed.length <= workers)

  // The replica comes back and the balancer sends it traffic again.
  await r2.start()
  await until(async () => {
    const res = await fetch(`${cl.url}/rest/v1/products?select=id&limit=1`, { headers: anon() })
    return res.headers.get('x-replica') === 'r2'
  }, 'r2 back behind the balancer')
})

test('restarting PostgreSQL heals every replica by itself, realtime included', async () => {
  const seen = []
  const c = realtime(r3)
  await subscribed(
    c
      .channel('heal')
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'categories' }, (p) =>
        seen.push(p.new.slug),
      ),
  )
  cl.pg.restart()
  for (const r of cl.replicas) {
    await until(
      async () =>
        (await fetch(`${r.url}/rest/v1/products?select=id&limit=1`, { headers: anon() })).status ===
        200,
      `REST on ${r.name} after the restart`,
      30_000,
    )
    await until(
      async () =>
        (await password(r.url, ADMIN, { 'x-forwarded-for': `10.252.0.${r.port % 250}` })).status ===
        200,
      `sign-in on ${r.name} after the restart`,
      30_000,
    )
  }
  const slug = `healed-${Date.now()}`
  await insertCategory(r1, 'Healed', slug)
  await until(() => seen.includes(slug), 'a change after the restart on r3', 30_000)
  await fetch(`${r1.url}/rest/v1/categories?slug=eq.${slug}`, {
    method: 'DELETE',
    headers: service(),
  })
  for (const r of cl.replicas) assert.ok(existsSync(join(dir, `${r.name}.log`)))
  const panics = cl.replicas.map((r) => readFileSync(join(dir, `${r.name}.log`), 'utf8')).join('\n')
  assert.doesNotMatch(panics, /panicked at/)
})
