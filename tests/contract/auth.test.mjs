// The auth calls of the admin panel (and of most Supabase apps) through the real supabase-js.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { startGateway, DEMO_ADMIN } from '../support/gateway.mjs'
import { client, uniqueEmail, demoToken } from './helpers.mjs'

let gw
before(async () => {
  gw = await startGateway()
})
after(async () => gw?.stop())

test('signUp returns a session; a second signUp says already registered', async () => {
  const c = client(gw)
  const email = uniqueEmail('signup')
  const events = []
  c.auth.onAuthStateChange((event) => events.push(event))
  const { data, error } = await c.auth.signUp({
    email,
    password: 'secret123',
    options: { emailRedirectTo: `${gw.url}/admin`, data: { full_name: 'Ann' } },
  })
  assert.equal(error, null)
  assert.ok(data.session.access_token)
  assert.equal(data.user.email, email)
  assert.equal(data.user.user_metadata.full_name, 'Ann')
  assert.equal(data.user.app_metadata.provider, 'email')
  assert.equal(data.user.identities.length, 1)
  for (const k of [
    'id',
    'aud',
    'email',
    'phone',
    'email_confirmed_at',
    'last_sign_in_at',
    'created_at',
    'updated_at',
  ]) {
    assert.equal(typeof data.user[k], 'string', k)
  }
  await new Promise((r) => setTimeout(r, 50))
  assert.ok(events.includes('SIGNED_IN'))

  const again = await client(gw).auth.signUp({ email: email.toUpperCase(), password: 'secret123' })
  assert.equal(again.data.user, null)
  assert.match(again.error.message, /already registered/)
  assert.equal(again.error.code, 'user_already_exists')
  assert.equal(again.error.status, 422)
})

test('signUp validation messages', async () => {
  const short = await client(gw).auth.signUp({ email: uniqueEmail('short'), password: '123' })
  assert.equal(short.error.message, 'Password should be at least 6 characters.')
  assert.equal(short.error.name, 'AuthWeakPasswordError')
  const bad = await client(gw).auth.signUp({ email: 'not-an-email', password: 'secret123' })
  assert.equal(bad.error.message, 'Unable to validate email address: invalid format')
})

test('signInWithPassword: good, wrong password, unknown user', async () => {
  const c = client(gw)
  const ok = await c.auth.signInWithPassword(DEMO_ADMIN)
  assert.equal(ok.error, null)
  assert.equal(ok.data.user.email, DEMO_ADMIN.email)
  assert.equal(ok.data.session.token_type, 'bearer')
  assert.equal(ok.data.session.expires_in, 3600)
  const wrong = await client(gw).auth.signInWithPassword({
    email: DEMO_ADMIN.email,
    password: 'nope-nope',
  })
  assert.equal(wrong.error.message, 'Invalid login credentials')
  assert.equal(wrong.error.status, 400)
  const unknown = await client(gw).auth.signInWithPassword({
    email: uniqueEmail('ghost'),
    password: 'nope-nope',
  })
  assert.equal(unknown.error.message, 'Invalid login credentials')
})

test('getSession, getUser, updateUser, role row, signOut', async () => {
  const c = client(gw)
  await c.auth.signInWithPassword(DEMO_ADMIN)
  const { data: s } = await c.auth.getSession()
  assert.ok(s.session.refresh_token)
  const { data: u, error } = await c.auth.getUser()
  assert.equal(error, null)
  assert.equal(u.user.email, DEMO_ADMIN.email)
  // The admin guard's query.
  const { data: role } = await c
    .from('user_roles')
    .select('role')
    .eq('user_id', u.user.id)
    .eq('role', 'admin')
    .single()
  assert.deepEqual(role, { role: 'admin' })
  const events = []
  c.auth.onAuthStateChange((e) => events.push(e))
  const upd = await c.auth.updateUser({ data: { theme: 'rose' } })
  assert.equal(upd.error, null)
  assert.equal(upd.data.user.user_metadata.theme, 'rose')
  const out = await c.auth.signOut()
  assert.equal(out.error, null)
  const after = await c.auth.getSession()
  assert.equal(after.data.session, null)
  await new Promise((r) => setTimeout(r, 50))
  assert.ok(events.includes('USER_UPDATED') && events.includes('SIGNED_OUT'), events.join())
  // The old access token's session is gone.
  const stale = await fetch(`${gw.url}/auth/v1/user`, {
    headers: { apikey: gw.anonKey, authorization: `Bearer ${s.session.access_token}` },
  })
  assert.equal(stale.status, 403)
})

test('refreshSession rotates the refresh token; reuse after the window revokes the family', async () => {
  const c = client(gw)
  const { data } = await c.auth.signInWithPassword(DEMO_ADMIN)
  const first = data.session.refresh_token
  const events = []
  c.auth.onAuthStateChange((e) => events.push(e))
  const r = await c.auth.refreshSession()
  assert.equal(r.error, null)
  assert.notEqual(r.data.session.refresh_token, first)
  await new Promise((res) => setTimeout(res, 50))
  assert.ok(events.includes('TOKEN_REFRESHED'))
  // Within the reuse interval the old token still works (a racing tab).
  const reuse = await fetch(`${gw.url}/auth/v1/token?grant_type=refresh_token`, {
    method: 'POST',
    headers: { apikey: gw.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ refresh_token: first }),
  })
  assert.equal(reuse.status, 200)
})

test('automatic refresh with a short token lifetime', async () => {
  const short = await startGateway({ env: { JWT_EXPIRY: '91' } })
  try {
    const c = client(short, short.anonKey, { autoRefreshToken: false })
    const { data } = await c.auth.signInWithPassword(DEMO_ADMIN)
    assert.equal(data.session.expires_in, 91)
    // getSession refreshes a session that expires within 90 s: here, after a second.
    await new Promise((r) => setTimeout(r, 1500))
    const { data: s, error } = await c.auth.getSession()
    assert.equal(error, null)
    assert.notEqual(s.session.refresh_token, data.session.refresh_token)
    assert.notEqual(s.session.access_token, data.session.access_token)
  } finally {
    await short.stop()
  }
})

test('a session survives a gateway restart on the same data', async () => {
  const { mkdtempSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const dir = mkdtempSync(join(tmpdir(), 'supagate-restart-'))
  const one = await startGateway({ dataDir: dir })
  const c = client(one)
  const { data } = await c.auth.signInWithPassword(DEMO_ADMIN)
  await one.stop()
  const two = await startGateway({ dataDir: dir })
  try {
    const res = await fetch(`${two.url}/auth/v1/user`, {
      headers: { apikey: two.anonKey, authorization: `Bearer ${data.session.access_token}` },
    })
    assert.equal(res.status, 200)
    const refreshed = await fetch(`${two.url}/auth/v1/token?grant_type=refresh_token`, {
      method: 'POST',
      headers: { apikey: two.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: data.session.refresh_token }),
    })
    assert.equal(refreshed.status, 200)
  } finally {
    await two.stop()
    const { rmSync } = await import('node:fs')
    rmSync(dir, { recursive: true, force: true })
  }
})

test('admin API with the service_role key', async () => {
  const svc = client(gw, gw.serviceKey)
  const email = uniqueEmail('admin-api')
  const created = await svc.auth.admin.createUser({
    email,
    password: 'secret123',
    email_confirm: true,
    user_metadata: { a: 1 },
  })
  assert.equal(created.error, null)
  assert.equal(created.data.user.email, email)
  const got = await svc.auth.admin.getUserById(created.data.user.id)
  assert.equal(got.data.user.user_metadata.a, 1)
  const list = await svc.auth.admin.listUsers({ page: 1, perPage: 2 })
  assert.equal(list.data.users.length, 2)
  assert.ok(list.data.total >= 2)
  const upd = await svc.auth.admin.updateUserById(created.data.user.id, { user_metadata: { b: 2 } })
  assert.equal(upd.data.user.user_metadata.b, 2)
  const del = await svc.auth.admin.deleteUser(created.data.user.id)
  assert.equal(del.error, null)
  const denied = await client(gw).auth.admin.listUsers()
  assert.equal(denied.error.status, 403)
  // GoTrue's admin roles: service_role and supabase_admin (which the REST API never switches to).
  const asAdmin = (role) =>
    fetch(`${gw.url}/auth/v1/admin/users?per_page=1`, {
      headers: { authorization: `Bearer ${demoToken({ role })}` },
    })
  assert.equal((await asAdmin('supabase_admin')).status, 200)
  const user = await asAdmin('authenticated')
  assert.equal(user.status, 403)
  assert.equal((await user.json()).error_code, 'not_admin')
  const rest = await fetch(`${gw.url}/rest/v1/products?select=id`, {
    headers: { authorization: `Bearer ${demoToken({ role: 'supabase_admin' })}` },
  })
  assert.equal(rest.status, 403)
})
