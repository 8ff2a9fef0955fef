// Edge Functions through the real supabase-js (`functions.invoke`), each fixture function run by
// Deno as `supabase functions serve` runs it: bodies of every kind, streaming, errors as
// edge-runtime answers them, verify_jwt on and off, the injected environment, RLS as the caller
// when a function calls back into /rest/v1, and work after the response (EdgeRuntime.waitUntil).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { FunctionsHttpError } from '@supabase/supabase-js'
import { startGateway, repoRoot } from '../support/gateway.mjs'
import { client, uniqueEmail, psql } from './helpers.mjs'

const WORKDIR = join(repoRoot, 'tests/fixtures/functions')
let gw
before(async () => {
  gw = await startGateway({ workdir: WORKDIR })
})
after(async () => {
  await gw?.stop()
})

async function user(email = uniqueEmail('fn')) {
  const c = client(gw)
  const { error } = await c.auth.signUp({ email, password: 'functions-pass-1' })
  assert.equal(error, null)
  return c
}

test('JSON, text, bytes and forms go in and come back as supabase-js reads them', async () => {
  const c = client(gw)
  const asJson = await c.functions.invoke('echo', { body: { name: 'Ann' } })
  assert.equal(asJson.error, null)
  assert.deepEqual(asJson.data, { got: { name: 'Ann' }, method: 'POST', path: '/echo', query: '' })

  const asText = await c.functions.invoke('echo', { body: 'hello' })
  assert.equal(asText.data, 'echo: hello')

  const bytes = await c.functions.invoke('echo', { body: new Uint8Array([1, 2, 3]).buffer })
  assert.ok(bytes.data instanceof Blob)
  assert.deepEqual([...new Uint8Array(await bytes.data.arrayBuffer())], [3, 2, 1])

  const form = new FormData()
  form.append('title', 'Roses')
  form.append('photo', new Blob([new Uint8Array(2048)]), 'photo.png')
  const asForm = await c.functions.invoke('echo', { body: form })
  assert.deepEqual(asForm.data, { fields: { title: 'Roses', photo: 2048 } })

  // A function written for std's old serve() (Deno.listen on a port, Deno.serveHttp).
  const legacy = await c.functions.invoke('legacy', { body: {} })
  assert.deepEqual(legacy.data, { style: 'std serve', path: '/legacy' })

  const get = await c.functions.invoke('echo/sub/path?x=1', { method: 'GET' })
  assert.deepEqual(get.data, { method: 'GET', path: '/echo/sub/path', authorization: true })
})

test('a streamed response arrives while it is being written', async () => {
  const { data, error } = await client(gw).functions.invoke('stream')
  assert.equal(error, null)
  const reader = data.body.getReader()
  const first = await reader.read()
  assert.match(new TextDecoder().decode(first.value), /^data: tick 0/)
  let rest = ''
  for (let r = await reader.read(); !r.done; r = await reader.read())
    rest += new TextDecoder().decode(r.value)
  assert.match(rest, /tick 2/)
})

test("errors: the function's own, a crash, the heap and CPU limits, unknown and disabled functions", async () => {
  const c = client(gw)
  const handled = await c.functions.invoke('fail', { body: {} })
  assert.ok(handled.error instanceof FunctionsHttpError)
  assert.equal(handled.error.context.status, 400)
  assert.deepEqual(await handled.error.context.json(), { error: 'name is required' })

  const crashed = await c.functions.invoke('fail?crash', { body: {} })
  assert.equal(crashed.error.context.status, 500)
  assert.deepEqual(await crashed.error.context.json(), {
    code: 'WORKER_ERROR',
    message: 'Function exited due to an error (please check logs)',
  })
  // The crashed process is replaced on the next request.
  const again = await c.functions.invoke('fail', { body: {} })
  assert.equal(again.error.context.status, 400)

  // Past its heap (256 MB) or its CPU time (2 s) a function's process ends: 546.
  for (const name of ['hog', 'spin']) {
    const limited = await c.functions.invoke(name)
    assert.equal(limited.error.context.status, 546, name)
    assert.deepEqual(await limited.error.context.json(), {
      code: 'WORKER_LIMIT',
      message: 'Worker failed to respond due to a resource limit (please check logs)',
    })
  }

  for (const name of ['nope', 'disabled']) {
    const r = await fetch(`${gw.url}/functions/v1/${name}`, {
      headers: { apikey: gw.anonKey, authorization: `Bearer ${gw.anonKey}` },
    })
    assert.equal(r.status, 404)
    assert.equal(await r.text(), 'Function not found')
  }
})

test('verify_jwt: tokens are checked unless the function opts out; preflights pass', async () => {
  const url = `${gw.url}/functions/v1/echo`
  const cases = [
    [{}, 401, { msg: 'Error: Missing authorization header' }],
    [{ authorization: 'Bearer not.a.jwt' }, 401, { msg: 'Invalid JWT' }],
    [{ authorization: gw.anonKey }, 401, { msg: "Error: Auth header is not 'Bearer {token}'" }],
    // As the CLI's Kong: an apikey that is a JWT is forwarded as the Authorization header as it is.
    [{ apikey: gw.anonKey }, 401, { msg: "Error: Auth header is not 'Bearer {token}'" }],
    [{ apikey: 'sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH' }, 200, null],
    [{ authorization: `Bearer ${gw.serviceKey}` }, 200, null],
  ]
  for (const [headers, status, body] of cases) {
    const r = await fetch(url, { headers })
    assert.equal(r.status, status, JSON.stringify(headers))
    if (body) assert.deepEqual(await r.json(), body)
    else await r.body?.cancel()
  }
  const preflight = await fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin: 'http://localhost:5173',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, x-client-info, apikey, content-type',
    },
  })
  assert.equal(preflight.status, 200)
  assert.equal(preflight.headers.get('access-control-allow-origin'), 'http://localhost:5173')

  const open = await fetch(`${gw.url}/functions/v1/open`)
  assert.equal(open.status, 200)
  assert.deepEqual(await open.json(), {
    authorization: null,
    secret: 'from-dotenv',
    home: null,
    supabaseOverride: true,
  })
})

test("a function calling /rest/v1 with the caller's JWT sees what RLS shows that user", async () => {
  const ann = await user()
  const ben = await user()
  for (const [c, title] of [
    [ann, 'ann-1'],
    [ann, 'ann-2'],
    [ben, 'ben-1'],
  ]) {
    const { error } = await c.from('notes').insert({ title })
    assert.equal(error, null)
  }
  const seen = await ann.functions.invoke('notes')
  assert.equal(seen.error, null)
  assert.deepEqual(seen.data, [{ title: 'ann-1' }, { title: 'ann-2' }])
  const anon = await client(gw).functions.invoke('notes')
  assert.deepEqual(anon.data, [])
})

test('work handed to EdgeRuntime.waitUntil finishes after the response', async () => {
  const note = `later-${Date.now()}`
  const { data, error } = await client(gw).functions.invoke('later', { body: { note } })
  assert.equal(error, null)
  assert.equal(data, 'accepted')
  assert.equal(psql(gw, `select count(*) from public.jobs where note = '${note}'`), '0')
  const t0 = Date.now()
  while (psql(gw, `select count(*) from public.jobs where note = '${note}'`) !== '1') {
    assert.ok(Date.now() - t0 < 10000, 'the job was never recorded')
    await new Promise((r) => setTimeout(r, 50))
  }
})

test('a database webhook calls a function by its local URL', async () => {
  const title = `hooked-${Date.now()}`
  const headers = JSON.stringify({
    'Content-Type': 'application/json',
    Authorization: `Bearer ${gw.serviceKey}`,
  })
  psql(
    gw,
    `create trigger events_hook after insert on public.events for each row execute function ` +
      `supabase_functions.http_request('${gw.url}/functions/v1/later', 'POST', '${headers}', '{}', '5000')`,
  )
  psql(gw, `insert into public.events (title) values ('${title}')`)
  const t0 = Date.now()
  while (
    psql(gw, `select count(*) from public.jobs where note = 'INSERT events ${title}'`) !== '1'
  ) {
    assert.ok(Date.now() - t0 < 15000, 'the webhook never reached the function')
    await new Promise((r) => setTimeout(r, 100))
  }
})
