// Realtime through the real supabase-js: postgres_changes (payloads, filters, RLS per
// subscriber), broadcast (self, ack, HTTP, binary, from the database), presence, private
// channels authorised by RLS on realtime.messages, token errors, both serializers, and no
// change lost across a gateway restart. The project is the notes fixture (its realtime migration).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { mkdtempSync, rmSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createServer } from 'node:net'
import { createClient } from '@supabase/supabase-js'
import WebSocket from 'ws'
import { execFileSync } from 'node:child_process'
import { startGateway, repoRoot, gatewayBinary } from '../support/gateway.mjs'
import { client, signedIn, uniqueEmail, demoToken } from './helpers.mjs'

const WORKDIR = join(repoRoot, 'tests/fixtures/notes')
const ALICE = { email: 'alice@example.com', password: 'alice-password-1' }
let gw
const clients = []
before(async () => {
  gw = await startGateway({ workdir: WORKDIR })
})
after(async () => {
  for (const c of clients) await c.removeAllChannels()
  await gw?.stop()
})

/** A client whose channels are removed at the end; `vsn` picks the serializer. */
function rt(g = gw, key = g.anonKey, vsn) {
  const c = createClient(g.url, key, {
    realtime: { transport: WebSocket, heartbeatIntervalMs: 1000, ...(vsn ? { vsn } : {}) },
    auth: { persistSession: false, autoRefreshToken: false },
  })
  clients.push(c)
  return c
}

async function user(email = uniqueEmail('rt'), password = 'realtime-pass-1') {
  const c = client(gw)
  const { data, error } = await c.auth.signUp({ email, password })
  if (error) throw error
  c.realtime.setAuth(data.session.access_token)
  clients.push(c)
  return { c, id: data.user.id, token: data.session.access_token }
}

/** Subscribes and resolves with the status it ends in (SUBSCRIBED, or the error). */
function subscribe(channel) {
  return new Promise((resolve) => {
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve({ status })
      if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') resolve({ status, err })
    })
  })
}

async function until(check, what, ms = 8000) {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (check()) return
    await new Promise((r) => setTimeout(r, 25))
  }
  assert.fail(`timed out waiting for ${what}`)
}

/**
 * Subscribes a channel with postgres_changes bindings and waits for the server's confirmation
 * (the `system` message realtime-js receives once the bindings are live): an event, not a pause.
 */
async function subscribeChanges(channel) {
  const system = []
  channel.on('system', {}, (p) => system.push(p))
  const r = await subscribe(channel)
  await until(
    () => system.some((m) => m.extension === 'postgres_changes'),
    'the subscription confirmation',
  )
  return r
}

test('inserts, updates and deletes arrive shaped as Supabase sends them', async () => {
  const c = rt()
  const got = []
  const system = []
  const ch = c
    .channel('board-all')
    .on('postgres_changes', { event: '*', schema: 'public', table: 'board' }, (p) => got.push(p))
    .on('system', {}, (p) => system.push(p))
  assert.equal((await subscribe(ch)).status, 'SUBSCRIBED')
  await until(() => system.length > 0, 'the subscription confirmation')
  assert.deepEqual(system[0], {
    extension: 'postgres_changes',
    status: 'ok',
    message: 'Subscribed to PostgreSQL',
    channel: 'board-all',
  })
  const { data: row } = await c
    .from('board')
    .insert({ room: 'shape', body: 'hi', tags: ['a', 'b'], meta: { n: 1 } })
    .select()
    .single()
  await c.from('board').update({ votes: 3 }).eq('id', row.id)
  await c.from('board').delete().eq('id', row.id)
  await until(() => got.length === 3, 'three changes')
  const [ins, upd, del] = got
  assert.equal(ins.eventType, 'INSERT')
  assert.equal(ins.schema, 'public')
  assert.equal(ins.table, 'board')
  assert.match(ins.commit_timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  assert.deepEqual(ins.new, { ...row })
  assert.deepEqual(ins.old, {})
  assert.equal(ins.errors, null)
  assert.equal(upd.eventType, 'UPDATE')
  assert.equal(upd.new.votes, 3)
  // replica identity full: the whole old row.
  assert.equal(upd.old.votes, 0)
  assert.equal(upd.old.body, 'hi')
  assert.equal(del.eventType, 'DELETE')
  assert.deepEqual(del.new, {})
  assert.equal(del.old.id, row.id)
  assert.deepEqual(del.old.tags, ['a', 'b'])
})

test('filters pick the rows a subscriber asked for', async () => {
  const c = rt()
  const room = []
  const many = []
  const listed = []
  await subscribeChanges(
    c
      .channel('board-filtered')
      .on(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'board', filter: 'room=eq.kitchen' },
        (p) => room.push(p.new.body),
      )
      .on(
        'postgres_changes',
        { event: 'UPDATE', schema: 'public', table: 'board', filter: 'votes=gt.5' },
        (p) => many.push(p.new.votes),
      )
      .on(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'board', filter: 'body=in.(x,"y,z")' },
        (p) => listed.push(p.new.body),
      )
      .on(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'board', filter: 'room=eq.filters-done' },
        () => room.push('marker'),
      ),
  )
  const { data: rows } = await c
    .from('board')
    .insert([
      { room: 'kitchen', body: 'x' },
      { room: 'garden', body: 'y,z' },
      { room: 'kitchen', body: 'w' },
    ])
    .select()
  for (const [i, votes] of [3, 6, 9].entries())
    await c.from('board').update({ votes }).eq('id', rows[i].id)
  // A last change every binding but one ignores: once it arrives, so has everything before it.
  await c.from('board').insert({ room: 'filters-done', body: 'end' })
  await until(() => room.includes('marker'), 'the marker change')
  assert.deepEqual(room, ['x', 'w', 'marker'])
  assert.deepEqual(many, [6, 9])
  assert.deepEqual(listed, ['x', 'y,z'])
})

test('a subscription to a table outside the publication is refused with a system error', async () => {
  const c = rt()
  const system = []
  const ch = c
    .channel('profiles-watch')
    .on('postgres_changes', { event: '*', schema: 'public', table: 'profiles' }, () => {})
    .on('system', {}, (p) => system.push(p))
  await subscribe(ch)
  await until(() => system.length > 0, 'the system message')
  assert.equal(system[0].status, 'error')
  assert.match(system[0].message, /^Unable to subscribe to changes with given parameters/)
})

test('row level security decides who hears of a change', async () => {
  const alice = await signedIn(gw, ALICE.email, ALICE.password)
  const { data: session } = await alice.auth.getSession()
  alice.realtime.setAuth(session.session.access_token)
  clients.push(alice)
  const bob = await user()
  const anon = rt()
  const heard = { alice: [], bob: [], anon: [] }
  const done = new Set()
  const watch = (c, who) =>
    subscribeChanges(
      c
        .channel(`notes-${who}`)
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'notes' }, (p) =>
          heard[who].push(p.new.title),
        )
        .on(
          'postgres_changes',
          { event: 'INSERT', schema: 'public', table: 'board', filter: 'room=eq.rls-done' },
          () => done.add(who),
        ),
    )
  await Promise.all([watch(alice, 'alice'), watch(bob.c, 'bob'), watch(anon, 'anon')])
  await alice.from('notes').insert({ title: 'alice only' })
  await bob.c.from('notes').insert({ title: 'bob only' })
  // A change everyone may see, committed last: once each has it, each has all it will hear.
  await rt(gw, gw.serviceKey).from('board').insert({ room: 'rls-done', body: 'end' })
  await until(() => done.size === 3, 'everyone hearing of the last change')
  assert.deepEqual(heard, { alice: ['alice only'], bob: ['bob only'], anon: [] })
})

test('replica identity full with NULL columns: changes reach their owner only, keyed or not', async () => {
  const [ann, ben] = [await user(), await user()]
  const heard = { ann: [], ben: [] }
  const watch = (u, who) =>
    subscribeChanges(
      u.c
        .channel(`identity-${who}`)
        .on('postgres_changes', { event: '*', schema: 'public', table: 'tasks' }, (p) =>
          heard[who].push(`${p.eventType} task ${p.new.title ?? ''}`),
        )
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'readings' }, (p) =>
          heard[who].push(`INSERT reading ${p.new.sensor} ${p.new.value}`),
        ),
    )
  await Promise.all([watch(ann, 'ann'), watch(ben, 'ben')])
  // due and details stay NULL; the whole row is the replica identity.
  const { data: task, error } = await ann.c
    .from('tasks')
    .insert({ title: 'water the ferns' })
    .select()
    .single()
  assert.equal(error, null)
  assert.equal(task.due, null)
  assert.equal(
    (await ann.c.from('tasks').update({ title: 'water the ficus' }).eq('id', task.id)).error,
    null,
  )
  assert.equal((await ben.c.from('tasks').insert({ title: 'ben', details: { n: 1 } })).error, null)
  // Without a primary key, NULLs, a float and json included.
  const reading = { sensor: 'greenhouse', value: 0.1, taken_at: null, raw: { a: [1, 2] } }
  assert.equal((await ann.c.from('readings').insert(reading)).error, null)
  assert.equal((await ann.c.from('readings').insert({ sensor: 'empty', value: null })).error, null)
  await until(
    () => heard.ann.length === 4 && heard.ben.length === 1,
    'each owner hearing of their changes',
  )
  assert.deepEqual(heard.ann, [
    'INSERT task water the ferns',
    'UPDATE task water the ficus',
    'INSERT reading greenhouse 0.1',
    'INSERT reading empty null',
  ])
  assert.deepEqual(heard.ben, ['INSERT task ben'])
})

test('broadcast between two clients honours self and ack', async () => {
  const [a, b] = [rt(), rt()]
  const gotA = []
  const gotB = []
  const chA = a
    .channel('lobby', { config: { broadcast: { self: true, ack: true } } })
    .on('broadcast', { event: 'wave' }, (m) => gotA.push(m))
  const chB = b.channel('lobby').on('broadcast', { event: 'wave' }, (m) => gotB.push(m))
  await Promise.all([subscribe(chA), subscribe(chB)])
  assert.equal(await chA.send({ type: 'broadcast', event: 'wave', payload: { from: 'a' } }), 'ok')
  await until(() => gotA.length === 1 && gotB.length === 1, 'both receiving a')
  assert.deepEqual(gotB[0], { type: 'broadcast', event: 'wave', payload: { from: 'a' } })
  await chB.send({ type: 'broadcast', event: 'wave', payload: { from: 'b' } })
  await until(() => gotA.length === 2, 'a receiving b')
  // b did not ask for its own messages: what b hears next is a's second wave, nothing between.
  await chA.send({ type: 'broadcast', event: 'wave', payload: { from: 'a again' } })
  await until(() => gotB.length === 2, 'b receiving a again')
  assert.deepEqual(
    gotB.map((m) => m.payload.from),
    ['a', 'a again'],
  )
  assert.equal(gotA[1].payload.from, 'b')
})

test('broadcasts over HTTP reach subscribers, JSON and binary', async () => {
  const c = rt()
  const got = []
  const ch = c.channel('http-topic').on('broadcast', { event: '*' }, (m) => got.push(m))
  await subscribe(ch)
  const server = rt(gw, gw.serviceKey)
  const res = await fetch(`${gw.url}/realtime/v1/api/broadcast`, {
    method: 'POST',
    headers: { apikey: gw.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      messages: [{ topic: 'http-topic', event: 'batch', payload: { n: 1 } }],
    }),
  })
  assert.equal(res.status, 202)
  assert.deepEqual(await server.channel('http-topic').httpSend('single', { n: 2 }), {
    success: true,
  })
  assert.deepEqual(
    await server.channel('http-topic').httpSend('bytes', new Uint8Array([1, 2, 3]).buffer),
    { success: true },
  )
  await until(() => got.length === 3, 'three broadcasts')
  assert.deepEqual(
    got.map((m) => m.event),
    ['batch', 'single', 'bytes'],
  )
  assert.deepEqual(got[1].payload, { n: 2 })
  assert.deepEqual([...new Uint8Array(got[2].payload)], [1, 2, 3])
  const bad = await fetch(`${gw.url}/realtime/v1/api/broadcast`, {
    method: 'POST',
    headers: { apikey: gw.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ topic: 'http-topic' }] }),
  })
  assert.equal(bad.status, 422)
})

test('presence: sync, join and leave between two clients', async () => {
  const [a, b] = [rt(), rt()]
  const chA = a.channel('room-presence', { config: { presence: { key: 'ann' } } })
  const joins = []
  const leaves = []
  chA
    .on('presence', { event: 'join' }, ({ key }) => joins.push(key))
    .on('presence', { event: 'leave' }, ({ key }) => leaves.push(key))
  await subscribe(chA)
  assert.equal(await chA.track({ mood: 'happy' }), 'ok')
  const chB = b
    .channel('room-presence', { config: { presence: { key: 'ben' } } })
    .on('presence', { event: 'sync' }, () => {})
  await subscribe(chB)
  await until(() => Object.keys(chB.presenceState()).includes('ann'), 'ben seeing ann')
  assert.equal(chB.presenceState().ann[0].mood, 'happy')
  await chB.track({ mood: 'curious' })
  await until(() => joins.includes('ben'), 'ann hearing ben join')
  await chB.untrack()
  await until(() => leaves.includes('ben'), 'ann hearing ben leave')
  assert.deepEqual(Object.keys(chA.presenceState()), ['ann'])
})

test('private channels follow RLS on realtime.messages, and the database broadcasts into them', async () => {
  const carol = await user()
  const dave = await user()
  const got = []
  const own = carol.c
    .channel(`room:${carol.id}`, {
      config: { private: true, broadcast: { self: true, ack: true } },
    })
    .on('broadcast', { event: '*' }, (m) => got.push(m))
  assert.equal((await subscribe(own)).status, 'SUBSCRIBED')
  const other = await subscribe(dave.c.channel(`room:${carol.id}`, { config: { private: true } }))
  assert.equal(other.status, 'CHANNEL_ERROR')
  assert.match(
    other.err.message,
    new RegExp(
      `^Unauthorized: You do not have permissions to read from this Channel topic: room:${carol.id}`,
    ),
  )
  assert.equal(await own.send({ type: 'broadcast', event: 'note', payload: { x: 1 } }), 'ok')
  await carol.c.from('notes').insert({ title: 'announced' })
  await until(() => got.length === 2, 'the broadcast and the database announcement')
  const fromDb = got.find((m) => m.event === 'note_added')
  assert.equal(fromDb.payload.title, 'announced')
  assert.ok(fromDb.meta?.id, 'a stored message carries its id')
  // The public topic of the same name is another channel.
  const pub = []
  await subscribe(
    rt()
      .channel(`room:${carol.id}`)
      .on('broadcast', { event: '*' }, (m) => pub.push(m)),
  )
  await own.send({ type: 'broadcast', event: 'note', payload: { x: 2 } })
  await until(() => got.length === 3, 'the private broadcast')
  // The public topic hears its own broadcast, sent after the private one, and nothing else.
  await rt().channel(`room:${carol.id}`).httpSend('public-note', { x: 3 })
  await until(() => pub.length > 0, 'the public broadcast')
  assert.deepEqual(
    pub.map((m) => m.event),
    ['public-note'],
  )
})

/** A token signed with the project's secret that expired two minutes ago. */
function expiredToken() {
  return demoToken({ role: 'authenticated', sub: 'x', exp: Math.floor(Date.now() / 1000) - 120 })
}

test('expired and forged tokens are refused with the reasons realtime-js shows', async () => {
  const c = rt()
  c.realtime.setAuth(expiredToken())
  const r = await subscribe(c.channel('needs-auth'))
  assert.equal(r.status, 'CHANNEL_ERROR')
  assert.match(r.err.message, /^InvalidJWTToken: Token has expired \d+ seconds ago/)
  const forged = gw.anonKey.slice(0, -4) + (gw.anonKey.endsWith('AAAA') ? 'BBBB' : 'AAAA')
  const f = rt()
  f.realtime.setAuth(forged)
  const r2 = await subscribe(f.channel('needs-auth-2'))
  assert.equal(r2.status, 'CHANNEL_ERROR')
  assert.match(r2.err.message, /^JwtSignatureError: Failed to validate JWT signature/)
})

test('the 1.0.0 serializer works as well as 2.0.0', async () => {
  const c = rt(gw, gw.anonKey, '1.0.0')
  const got = []
  const changes = []
  const ch = c
    .channel('v1-room', { config: { broadcast: { self: true } } })
    .on('broadcast', { event: 'ping' }, (m) => got.push(m.payload))
    .on(
      'postgres_changes',
      { event: 'INSERT', schema: 'public', table: 'board', filter: 'room=eq.v1' },
      (p) => changes.push(p.new.body),
    )
  assert.equal((await subscribeChanges(ch)).status, 'SUBSCRIBED')
  await ch.send({ type: 'broadcast', event: 'ping', payload: { v: 1 } })
  await c.from('board').insert({ room: 'v1', body: 'old protocol' })
  await until(() => got.length === 1 && changes.length === 1, 'a broadcast and a change over 1.0.0')
  assert.deepEqual(got[0], { v: 1 })
  assert.deepEqual(changes, ['old protocol'])
})

function freePort() {
  return new Promise((resolve) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

test('after a gateway restart the client reconnects and no committed change is lost', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'supagate-rt-restart-'))
  chmodSync(scratch, 0o755)
  const dataDir = join(scratch, 'data')
  const port = await freePort()
  let g = await startGateway({ workdir: WORKDIR, dataDir, port })
  try {
    const c = rt(g)
    const seen = []
    await subscribeChanges(
      c
        .channel('restart-watch')
        .on(
          'postgres_changes',
          { event: 'INSERT', schema: 'public', table: 'board', filter: 'room=eq.restart' },
          (p) => seen.push(p.new.body),
        ),
    )
    const writer = rt(g, g.serviceKey)
    await writer.from('board').insert({ room: 'restart', body: 'before' })
    await until(() => seen.includes('before'), 'the change before the restart')
    await g.stop()
    g = await startGateway({ workdir: WORKDIR, dataDir, port })
    // Committed at once, before the client has even noticed the restart.
    const { error } = await writer.from('board').insert({ room: 'restart', body: 'after' })
    assert.equal(error, null)
    await until(() => seen.includes('after'), 'the change committed during reconnection', 15000)
    assert.deepEqual(seen, ['before', 'after'])
    // `db reset` while it runs: the database starts over, subscriptions keep working.
    execFileSync(gatewayBinary, ['--workdir', WORKDIR, '--data-dir', dataDir, 'db', 'reset'], {
      env: { ...process.env, RUST_LOG: 'error' },
    })
    assert.equal(
      (await writer.from('board').insert({ room: 'restart', body: 'after reset' })).error,
      null,
    )
    await until(() => seen.includes('after reset'), 'the change after db reset', 15000)
  } finally {
    await g.stop()
    rmSync(scratch, { recursive: true, force: true })
  }
})
