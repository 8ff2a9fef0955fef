// What a Supabase database brings, used as real projects use it (tests/fixtures/database): a
// pg_cron job that runs, pg_net requests and a database webhook created as Studio creates it
// reaching a local HTTP server (after commit only), a [db.vault] secret that round-trips and
// that anon and authenticated cannot read, a JWT signed by pgjwt that supagate accepts, and a
// queue message sent through supabase-js (pgmq_public) read back once. The tests run at once:
// the cron job's first run (at the next minute) is awaited while the others go on.
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { createServer } from 'node:http'
import { createClient } from '@supabase/supabase-js'
import WebSocket from 'ws'
import { startGateway, repoRoot } from '../support/gateway.mjs'
import { client, psql } from './helpers.mjs'

const WORKDIR = join(repoRoot, 'tests/fixtures/database')
const PARTNER_KEY = 'pk_test_7f3a9c'
let gw

async function until(check, what, ms = 10000) {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 50))
  }
  assert.fail(`timed out waiting for ${what}`)
}

/** A local HTTP server recording what it receives, answering JSON. */
async function receiver() {
  const got = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      got.push({ method: req.method, url: req.url, headers: req.headers, body })
      res.writeHead(200, { 'content-type': 'application/json', 'x-answered-by': 'receiver' })
      res.end('{"received":true}')
    })
  })
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  return { got, url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() }
}

before(async () => {
  // The receivers below listen on this machine, which the database may not reach by default
  // (Studio and the workbench answer loopback: cli/tests/it/borrowed_powers.rs); this project lets it.
  gw = await startGateway({
    workdir: WORKDIR,
    env: { PARTNER_API_KEY: PARTNER_KEY, SUPAGATE_NET_LOCAL: 'allow' },
  })
})
after(() => gw?.stop())

describe('the Supabase database', { concurrency: true }, () => {
  test('a job scheduled with cron.schedule runs in the served database', async () => {
    assert.equal(psql(gw, `select schedule from cron.job where jobname = 'heartbeat'`), '* * * * *')
    const heartbeats = client(gw).from('heartbeats')
    // The first run comes at the next minute (or the one after, should the scheduler start just
    // as a minute turns); its row in job_run_details is marked after the job's own commit.
    await until(async () => (await heartbeats.select('id')).data?.length > 0, 'a heartbeat', 135000)
    const status = () => psql(gw, `select status from cron.job_run_details order by runid limit 1`)
    await until(() => status() !== 'running' && status() !== 'starting', 'the run to be recorded')
    assert.equal(status(), 'succeeded')
  })

  test('pg_net requests are made after commit and their answers recorded', async () => {
    const r = await receiver()
    try {
      const id = psql(
        gw,
        `select net.http_get('${r.url}/ping', '{"q":"a b"}'::jsonb, '{"X-Token":"t1"}'::jsonb)`,
      )
      psql(gw, `begin; select net.http_post('${r.url}/never', '{"n":1}'); rollback;`)
      const posted = psql(gw, `select net.http_post('${r.url}/echo', '{"n":2}'::jsonb)`)
      await until(
        () =>
          psql(gw, `select count(*) from net._http_response where id in (${id}, ${posted})`) ===
          '2',
        'two answers',
      )
      assert.deepEqual(
        r.got.map((g) => `${g.method} ${g.url}`),
        ['GET /ping?q=a%20b', 'POST /echo'],
      )
      assert.equal(r.got[0].headers['x-token'], 't1')
      assert.match(r.got[0].headers['user-agent'], /^pg_net\//)
      assert.equal(r.got[1].body, '{"n": 2}')
      assert.equal(
        psql(
          gw,
          `select status_code || ' ' || content || ' ' || (headers->>'x-answered-by') || ' ' || timed_out from net._http_response where id = ${id}`,
        ),
        '200 {"received":true} receiver false',
      )
      const refused = psql(gw, `select net.http_get('http://127.0.0.1:1/closed')`)
      await until(
        () => psql(gw, `select count(*) from net._http_response where id = ${refused}`) === '1',
        'the failure',
      )
      assert.equal(
        psql(gw, `select error_msg from net._http_response where id = ${refused}`),
        "Couldn't connect to server",
      )
    } finally {
      r.close()
    }
  })

  test('a webhook created as Studio creates it posts the record of each committed insert', async () => {
    const r = await receiver()
    try {
      psql(
        gw,
        `create trigger orders_webhook after insert on public.orders for each row
         execute function supabase_functions.http_request('${r.url}/hooks/orders', 'POST',
           '{"Content-Type":"application/json","X-Webhook-Secret":"s3"}', '{}', '5000')`,
      )
      psql(gw, `begin; insert into public.orders (item) values ('never sent'); rollback;`)
      const { error } = await client(gw).from('orders').insert({ item: 'peonies' })
      assert.equal(error, null)
      await until(
        () =>
          psql(
            gw,
            `select count(*) from supabase_functions.hooks h join net._http_response r on r.id = h.request_id where h.hook_name = 'orders_webhook' and r.status_code = 200`,
          ) === '1',
        'the webhook answer',
      )
      assert.equal(r.got.length, 1)
      const [hook] = r.got
      assert.equal(hook.url, '/hooks/orders')
      assert.equal(hook.headers['x-webhook-secret'], 's3')
      const body = JSON.parse(hook.body)
      assert.deepEqual(
        { ...body, record: { ...body.record, id: 0 } },
        {
          type: 'INSERT',
          table: 'orders',
          schema: 'public',
          old_record: null,
          record: { id: 0, item: 'peonies', note: null },
        },
      )
    } finally {
      r.close()
    }
  })

  test('a [db.vault] secret round-trips and anon and authenticated cannot read it', async () => {
    assert.equal(
      psql(
        gw,
        `select decrypted_secret from vault.decrypted_secrets where name = 'partner_api_key'`,
      ),
      PARTNER_KEY,
    )
    assert.ok(
      !psql(gw, `select secret from vault.secrets where name = 'partner_api_key'`).includes(
        PARTNER_KEY,
      ),
    )
    const id = psql(
      gw,
      `select vault.create_secret('first value', 'rotating', 'a key that changes')`,
    )
    psql(gw, `select vault.update_secret('${id}', 'second value')`)
    assert.equal(
      psql(
        gw,
        `select decrypted_secret || ' / ' || description from vault.decrypted_secrets where id = '${id}'`,
      ),
      'second value / a key that changes',
    )
    // A SECURITY DEFINER function the app wrote may read it; the API roles may not.
    const { data, error } = await client(gw).rpc('partner_key_configured')
    assert.equal(error, null)
    assert.equal(data, true)
    for (const role of ['anon', 'authenticated']) {
      assert.throws(
        () => psql(gw, `set role ${role}; select decrypted_secret from vault.decrypted_secrets`),
        /permission denied for schema vault/,
      )
      assert.throws(
        () => psql(gw, `set role ${role}; select vault.create_secret('x')`),
        /permission denied for schema vault/,
      )
    }
  })

  test('a JWT signed by pgjwt is accepted by supagate, and pgjwt verifies its own', async () => {
    const { data: token, error } = await client(gw, gw.serviceKey).rpc('service_token', {
      secret: gw.status.JWT_SECRET,
    })
    assert.equal(error, null)
    const { error: denied } = await client(gw).rpc('service_token', { secret: 'x' })
    assert.equal(denied.code, '42501')
    const user = createClient(gw.url, gw.anonKey, {
      global: { headers: { Authorization: `Bearer ${token}` } },
      realtime: { transport: WebSocket },
      auth: { persistSession: false, autoRefreshToken: false },
    })
    const { data: uid } = await user.rpc('whoami')
    assert.equal(uid, '6d3b1a2e-0f4c-4b8a-9d8e-2f1c3a4b5c6d')
    assert.equal(
      psql(gw, `select valid from extensions.verify('${token}', '${gw.status.JWT_SECRET}')`),
      't',
    )
    assert.equal(psql(gw, `select valid from extensions.verify('${token}', 'another secret')`), 'f')
    assert.equal(
      psql(
        gw,
        `select payload->>'a' from extensions.verify(extensions.sign('{"a":1}', 'k', 'HS384'), 'k', 'HS384')`,
      ),
      '1',
    )
  })

  test('a queue message sent through supabase-js is read back once', async () => {
    const queue = client(gw, gw.serviceKey).schema('pgmq_public')
    const { data: sent, error } = await queue.rpc('send', {
      queue_name: 'emails',
      message: { to: 'ann@example.com' },
    })
    assert.equal(error, null)
    assert.equal(sent.length, 1)
    const { data: batch } = await queue.rpc('send_batch', {
      queue_name: 'emails',
      messages: [{ to: 'bo@example.com' }],
    })
    assert.equal(batch.length, 1)
    const { data: read } = await queue.rpc('read', {
      queue_name: 'emails',
      sleep_seconds: 30,
      n: 5,
    })
    assert.deepEqual(
      read.map((m) => [m.msg_id, m.read_ct, m.message.to]),
      [
        [sent[0], 1, 'ann@example.com'],
        [batch[0], 1, 'bo@example.com'],
      ],
    )
    const { data: again } = await queue.rpc('read', {
      queue_name: 'emails',
      sleep_seconds: 30,
      n: 5,
    })
    assert.deepEqual(again, [])
    const { data: archived } = await queue.rpc('archive', {
      queue_name: 'emails',
      message_id: sent[0],
    })
    assert.equal(archived, true)
    const { data: deleted } = await queue.rpc('delete', {
      queue_name: 'emails',
      message_id: batch[0],
    })
    assert.equal(deleted, true)
    assert.equal(
      `${psql(gw, `select count(*) from pgmq.q_emails`)}/${psql(gw, `select count(*) from pgmq.a_emails`)}`,
      '0/1',
    )
    // The other API roles need grants of their own on a queue.
    const { error: refused } = await client(gw)
      .schema('pgmq_public')
      .rpc('send', { queue_name: 'emails', message: {} })
    assert.equal(refused.code, '42501')
  })
})
