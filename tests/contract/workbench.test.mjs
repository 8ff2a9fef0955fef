// The testing workbench on the shop, driven as a developer drives it: `test db` (pgTAP, failing
// assertions shown whole, exit code), `exec` (the command's environment and exit code),
// snapshots (named and as a folder: users, rows and stored objects back as they were), branches
// (REST, auth, storage and realtime isolated per branch), the emulator endpoints (codes sent,
// users deleted, tables emptied, the tokens' clock) and the request inspector's RLS outcome.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import WebSocket from 'ws'
import { startGateway, gatewayBinary, repoRoot, DEMO_ADMIN } from '../support/gateway.mjs'
import { client, signedIn, uniqueEmail } from './helpers.mjs'
import { configure, branch, setClientDefaults, expectDenied, setClock } from '@supagate/testing'

const run = promisify(execFile)
let gw
let scratch

/** Runs the binary on the gateway's data directory; resolves with { code, stdout, stderr }. */
async function supagate(args, { dataDir = gw.dataDir, env = {} } = {}) {
  try {
    const { stdout, stderr } = await run(
      gatewayBinary,
      ['--workdir', repoRoot, '--data-dir', dataDir, ...args],
      {
        env: {
          ...process.env,
          DATABASE_URL: '',
          RUST_LOG: 'warn',
          SUPAGATE_CACHE_DIR: join(repoRoot, 'target/tmp/pg-cache'),
          ...env,
        },
        timeout: 120000,
      },
    )
    return { code: 0, stdout, stderr }
  } catch (e) {
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'supagate-workbench-'))
  gw = await startGateway()
  configure({ url: gw.url, anonKey: gw.anonKey, serviceKey: gw.serviceKey })
  setClientDefaults({ realtime: { transport: WebSocket } })
})
after(async () => {
  await gw?.stop()
  rmSync(scratch, { recursive: true, force: true })
})

test('test db runs pgTAP files, shows a failing assertion whole and exits 1', async () => {
  const dir = join(scratch, 'pgtap')
  const { mkdirSync } = await import('node:fs')
  mkdirSync(join(dir, 'nested'), { recursive: true })
  writeFileSync(
    join(dir, 'a_pass.test.sql'),
    `begin; create extension "basejump-supabase_test_helpers" version '0.0.6';
select plan(4);
select tests.create_supabase_user('ann');
select tests.authenticate_as('ann');
select is(auth.uid(), tests.get_supabase_uid('ann'), 'auth.uid() is the user signed in');
select tests.rls_enabled('public', 'products');
select tests.freeze_time('2020-02-02 10:00+00');
select is(now(), '2020-02-02 10:00+00'::timestamptz, 'time stands still');
select tests.unfreeze_time();
select ok(now() > '2024-01-01', 'and moves again');
select * from finish(); rollback;`,
  )
  writeFileSync(
    join(dir, 'nested', 'b_fail.sql'),
    `begin; select plan(2);
select ok(true, 'fine');
select is((select count(*) from public.bouquet_requests)::int, 99, 'ninety-nine requests');
select * from finish(); rollback;`,
  )
  const failed = await supagate(['test', 'db', dir])
  assert.equal(failed.code, 1, failed.stderr)
  assert.match(failed.stdout, /a_pass\.test\.sql \.+ ok/)
  assert.match(
    failed.stdout,
    /not ok 2 - ninety-nine requests\n# +Failed test 2: "ninety-nine requests"\n# +have: 0\n# +want: 99/,
  )
  assert.match(failed.stdout, /b_fail\.sql \.+ Failed 1\/2 subtests/)
  assert.match(failed.stdout, /Files=2, Tests=6, .*\nResult: FAIL/)
  const passed = await supagate(['test', 'db', join(dir, 'a_pass.test.sql')])
  assert.equal(passed.code, 0, passed.stdout + passed.stderr)
  assert.match(passed.stdout, /All tests successful\.\nFiles=1, Tests=4/)
  // pgTAP and the helpers were there for the run only.
  const { data } = await client(gw, gw.serviceKey).rpc('dashboard_counts')
  assert.ok(data, 'the database still serves')
  assert.equal((await supagate(['test', 'db', join(dir, 'missing.sql')])).code, 1)
})

test('exec gives the command the URLs and keys and passes its exit code through', async () => {
  const script = `const e = process.env; console.log(JSON.stringify({ url: e.SUPABASE_URL, api: e.API_URL, anon: e.SUPABASE_ANON_KEY === e.ANON_KEY, db: e.DB_URL }));
fetch(e.SUPABASE_URL + '/rest/v1/categories?select=slug&limit=1', { headers: { apikey: e.SUPABASE_ANON_KEY } }).then(r => r.json()).then(b => { console.log(b.length); process.exit(7) })`
  const r = await supagate(['exec', '--fresh', '--', process.execPath, '-e', script], {
    dataDir: join(scratch, 'unused'),
  })
  assert.equal(r.code, 7, r.stderr)
  const [line, count] = r.stdout.trim().split('\n')
  const env = JSON.parse(line)
  assert.match(env.url, /^http:\/\/127\.0\.0\.1:\d+$/)
  assert.notEqual(env.url, gw.url)
  assert.equal(env.api, env.url)
  assert.equal(env.anon, true)
  assert.match(env.db, /^postgresql:\/\//)
  assert.equal(count, '1')
})

test('a snapshot puts back users, rows and stored objects; a snapshot folder too', async () => {
  const service = client(gw, gw.serviceKey)
  const kept = uniqueEmail('kept')
  await service.auth.admin.createUser({ email: kept, password: 'secret-123', email_confirm: true })
  const bytes = Buffer.from('\x89PNG\r\n\x1a\n snapshot')
  assert.equal(
    (
      await service.storage
        .from('product-images')
        .upload('snap/a.png', bytes, { contentType: 'image/png' })
    ).error,
    null,
  )
  const saved = await supagate(['snapshot', 'save', 'before-changes'])
  assert.equal(saved.code, 0, saved.stderr)
  const dir = join(scratch, 'exported')
  assert.equal((await supagate(['snapshot', 'export', dir])).code, 0)

  const later = uniqueEmail('later')
  await service.auth.admin.createUser({ email: later, password: 'secret-123', email_confirm: true })
  assert.equal((await service.storage.from('product-images').remove(['snap/a.png'])).error, null)
  await service.from('categories').delete().eq('slug', 'plants')

  const restored = await supagate(['snapshot', 'restore', 'before-changes'])
  assert.equal(restored.code, 0, restored.stderr)
  const emails = async () =>
    (await service.auth.admin.listUsers({ perPage: 1000 })).data.users.map((u) => u.email)
  assert.ok((await emails()).includes(kept))
  assert.ok(!(await emails()).includes(later))
  assert.equal(
    (await service.from('categories').select('slug').eq('slug', 'plants')).data.length,
    1,
  )
  const file = await service.storage.from('product-images').download('snap/a.png')
  assert.equal(Buffer.from(await file.data.arrayBuffer()).toString(), bytes.toString())
  assert.match((await supagate(['snapshot', 'list'])).stdout, /^before-changes +\d{4}-/m)
  const bad = await supagate(['snapshot', 'restore', 'Nope!'])
  assert.equal(bad.code, 1)
  assert.match(bad.stderr, /a snapshot name is 1 to 40 characters/)

  // The folder: the state of the moment it was written.
  await service.auth.admin.createUser({ email: later, password: 'secret-123', email_confirm: true })
  assert.equal((await supagate(['snapshot', 'import', dir])).code, 0)
  assert.ok((await emails()).includes(kept))
  assert.ok(!(await emails()).includes(later))
  // exec --fresh --import: a new project started from the folder; --export-on-exit writes one.
  const check = `const e = process.env; fetch(e.SUPABASE_URL + '/auth/v1/admin/users?per_page=1000', { headers: { apikey: e.SUPABASE_SERVICE_ROLE_KEY, authorization: 'Bearer ' + e.SUPABASE_SERVICE_ROLE_KEY } })
  .then(r => r.json()).then(b => process.exit(b.users.some(u => u.email === ${JSON.stringify(kept)}) ? 0 : 3))`
  const again = join(scratch, 'exported-again')
  const fresh = await supagate(
    [
      'exec',
      '--fresh',
      '--import',
      dir,
      '--export-on-exit',
      again,
      '--',
      process.execPath,
      '-e',
      check,
    ],
    { dataDir: join(scratch, 'unused2') },
  )
  assert.equal(fresh.code, 0, fresh.stderr)
  assert.match(fresh.stderr, /Exported the state to/)
  assert.equal((await supagate(['snapshot', 'import', again])).code, 0)
  assert.ok((await emails()).includes(kept))
  assert.equal((await supagate(['snapshot', 'delete', 'before-changes'])).code, 0)
  assert.doesNotMatch((await supagate(['snapshot', 'list'])).stdout, /before-changes/)
})

test('branches: each serves REST, auth, storage and realtime on a copy of its own', async () => {
  const [one, two] = await Promise.all([branch(), branch()])
  const email = uniqueEmail('branch')
  const user = await one.asUser(email)
  assert.ok(user)
  // The user exists on branch one only.
  const find = async (scope) =>
    (await scope.asService().auth.admin.listUsers({ perPage: 1000 })).data.users.some(
      (u) => u.email === email,
    )
  assert.equal(await find(one), true)
  assert.equal(await find(two), false)
  assert.equal(
    (await client(gw, gw.serviceKey).auth.admin.listUsers({ perPage: 1000 })).data.users.some(
      (u) => u.email === email,
    ),
    false,
  )

  const admin = one.asAnon()
  assert.equal((await admin.auth.signInWithPassword(DEMO_ADMIN)).error, null)
  // Realtime on branch one hears its own change.
  const heard = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no change heard on the branch')), 10000)
    const ch = admin
      .channel('branch-products')
      .on('postgres_changes', { event: 'UPDATE', schema: 'public', table: 'categories' }, (p) => {
        clearTimeout(timer)
        resolve(p.new.name)
        admin.removeChannel(ch)
      })
      .subscribe((s) => {
        if (s === 'SUBSCRIBED')
          admin
            .from('categories')
            .update({ name: 'Branch Plants' })
            .eq('slug', 'plants')
            .then(() => {})
      })
  })
  assert.equal(await heard, 'Branch Plants')
  // Its socket would keep this process alive, reconnecting, once the gateway stops.
  admin.realtime.disconnect()
  const name = async (c) =>
    (await c.from('categories').select('name').eq('slug', 'plants').single()).data.name
  assert.equal(await name(two.asAnon()), 'Plants')
  assert.equal(await name(client(gw)), 'Plants')

  // Storage: an object deleted on a branch stays for the project.
  const service = client(gw, gw.serviceKey)
  assert.equal(
    (
      await service.storage
        .from('product-images')
        .upload('branch/b.png', Buffer.from('\x89PNG\r\n\x1a\n b'), { contentType: 'image/png' })
    ).error,
    null,
  )
  const three = await branch()
  assert.equal(
    (await three.asService().storage.from('product-images').remove(['branch/b.png'])).error,
    null,
  )
  assert.equal(
    (await three.asService().storage.from('product-images').download('branch/b.png')).error
      ?.statusCode,
    '404',
  )
  assert.equal((await service.storage.from('product-images').download('branch/b.png')).error, null)

  const listed = await (
    await fetch(`${gw.url}/_supagate/v1/branches`, { headers: { apikey: gw.serviceKey } })
  ).json()
  assert.deepEqual(
    listed
      .map((b) => b.name)
      .filter((n) => [one.name, two.name, three.name].includes(n))
      .sort(),
    [one.name, two.name, three.name].sort(),
  )
  for (const b of [one, two, three]) await b.drop()
  const gone = await one.asAnon().from('categories').select('slug')
  assert.equal(gone.status, 404)
  assert.match(gone.error.message, /no branch named/)
  // Bad input says what is wrong; the workbench needs the service role.
  const bad = await fetch(`${gw.url}/_supagate/v1/branches`, {
    method: 'POST',
    headers: { apikey: gw.serviceKey, 'content-type': 'application/json' },
    body: '{"name":"Bad Name"}',
  })
  assert.equal(bad.status, 400)
  assert.match((await bad.json()).message, /1 to 40 characters/)
  assert.equal(
    (
      await fetch(`${gw.url}/_supagate/v1/branches`, {
        method: 'POST',
        headers: { apikey: gw.anonKey },
      })
    ).status,
    401,
  )
})

test('emulator endpoints: codes sent, users deleted, tables emptied, the tokens clock', async () => {
  const b = await branch()
  const email = uniqueEmail('otp')
  const anon = b.asAnon()
  assert.equal((await anon.auth.signInWithOtp({ email })).error, null)
  const [sent] = await b.codes(email)
  assert.equal(sent.channel, 'email')
  assert.equal(sent.pending, true)
  assert.match(sent.code, /^\d{6}$/)
  assert.match(sent.link, /\/auth\/v1\/verify\?token=/)
  const verified = await anon.auth.verifyOtp({ email, token: sent.code, type: 'email' })
  assert.equal(verified.error, null)
  assert.equal((await b.codes(email))[0].pending, false)
  // Nothing was sent on the project's own database.
  assert.equal(
    (
      await (
        await fetch(`${gw.url}/_supagate/v1/codes?to=${encodeURIComponent(email)}`, {
          headers: { apikey: gw.serviceKey },
        })
      ).json()
    ).codes.length,
    0,
  )

  // The clock: two hours on, the session's token has expired; back, it works again.
  const signed = anon
  await setClock(7200)
  try {
    const late = await signed.from('categories').select('slug').limit(1)
    assert.equal(late.status, 401)
    assert.match(late.error.message, /JWT expired/)
  } finally {
    await setClock(0)
  }
  assert.equal((await signed.from('categories').select('slug').limit(1)).status, 200)

  await b.truncate(['public.bouquet_requests'])
  assert.equal(
    (await b.asService().from('bouquet_requests').select('*', { count: 'exact', head: true }))
      .count,
    0,
  )
  await assert.rejects(b.truncate(['public.nope']), /no table "public.nope"/)
  assert.ok((await b.deleteUsers()) >= 2)
  assert.equal((await b.asService().auth.admin.listUsers()).data.users.length, 0)
  // The project's own users are untouched.
  assert.ok(await signedIn(gw, DEMO_ADMIN.email, DEMO_ADMIN.password))
  await b.drop()
})

test('the request inspector says what row level security did', async () => {
  const res = await fetch(`${gw.url}/_supagate/v1/requests`, { headers: { apikey: gw.serviceKey } })
  assert.equal(res.headers.get('content-type'), 'text/event-stream')
  const reader = res.body.getReader()
  assert.match(Buffer.from((await reader.read()).value).toString(), /^: following/)
  const events = []
  const reading = (async () => {
    let buf = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      buf += Buffer.from(value).toString()
      for (const block of buf.split('\n\n').slice(0, -1)) {
        const data = block.split('\n').find((l) => l.startsWith('data: '))
        if (data) events.push(JSON.parse(data.slice(6)))
      }
      buf = buf.slice(buf.lastIndexOf('\n\n') + 2)
    }
  })()
  const anon = client(gw)
  await anon.from('products').select('name').eq('is_available', false)
  await expectDenied(anon.from('products').insert({ name: 'Sneaky' }))
  await expectDenied(anon.from('bouquet_requests').select('id'))
  const deadline = Date.now() + 10000
  while (events.filter((e) => e.path?.startsWith('/rest/v1/')).length < 3 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20))
  await reader.cancel()
  await reading.catch(() => {})
  const rest = events.filter((e) => e.path?.startsWith('/rest/v1/'))
  const [read, insert, select] = rest
  assert.equal(read.role, 'anon')
  assert.match(read.sql, /FROM "public"\."products"/)
  assert.equal(read.rls.visible, 0)
  assert.ok(read.rls.without_rls > 0, 'the owner sees the unavailable products')
  assert.deepEqual(
    read.rls.policies.filter((p) => p.applies).map((p) => p.name),
    ['Public reads available products'],
  )
  assert.equal(insert.status, 401)
  assert.match(insert.rls.denied, /no INSERT policy applies to anon/)
  assert.match(select.rls.denied, /anon has no SELECT privilege on public\.bouquet_requests/)
})
