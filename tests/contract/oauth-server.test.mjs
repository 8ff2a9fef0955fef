// GoTrue's OAuth 2.1 server through the real supabase-js: the admin client API, dynamic
// registration, the metadata document, and an authorization code flow with PKCE as a third-party
// client runs it (authorize → the app's consent page → approve → code → tokens → refresh), with
// GoTrue's answers to a reused code, a wrong secret or verifier, a denied request and a revoked
// grant. Project: tests/fixtures/auth-flows ([auth.oauth_server] on).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { createHash, randomBytes } from 'node:crypto'
import { startGateway, repoRoot } from '../support/gateway.mjs'
import { client, uniqueEmail } from './helpers.mjs'

let gw
before(async () => {
  gw = await startGateway({ workdir: join(repoRoot, 'tests/fixtures/auth-flows') })
})
after(async () => gw?.stop())

const admin = () => client(gw, gw.serviceKey).auth.admin.oauth
const auth = (path, init = {}) => fetch(`${gw.url}/auth/v1${path}`, { redirect: 'manual', ...init })
const claimsOf = (jwt) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url'))

/** A signed-in user of the app whose consent page the server sends browsers to. */
async function signedInUser() {
  const email = uniqueEmail('oauth')
  const made = await client(gw, gw.serviceKey).auth.admin.createUser({
    email,
    password: 'oauth-pass-1',
    email_confirm: true,
  })
  assert.equal(made.error, null)
  const c = client(gw)
  assert.equal((await c.auth.signInWithPassword({ email, password: 'oauth-pass-1' })).error, null)
  return { c, email, id: made.data.user.id }
}

/** Starts an authorization as a client's browser would: the authorization id on the consent page. */
async function authorize(
  clientId,
  { redirectUri = 'https://client.example/cb', state = 'xyz', scope } = {},
) {
  const verifier = randomBytes(32).toString('base64url')
  const challenge = createHash('sha256').update(verifier).digest('base64url')
  const q = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })
  if (scope) q.set('scope', scope)
  const res = await auth(`/oauth/authorize?${q}`)
  assert.equal(res.status, 302, await res.clone().text())
  const to = new URL(res.headers.get('location'))
  assert.equal(`${to.origin}${to.pathname}`, 'http://127.0.0.1:3000/oauth/consent')
  return { id: to.searchParams.get('authorization_id'), verifier }
}

const tokenRequest = (form, basic) =>
  auth('/oauth/token', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(basic ? { authorization: `Basic ${Buffer.from(basic).toString('base64')}` } : {}),
    },
    body: new URLSearchParams(form),
  })

test("admin client API: create, read, list, update, regenerate, delete, with GoTrue's checks", async () => {
  const created = await admin().createClient({
    client_name: 'Bouquet planner',
    redirect_uris: ['https://client.example/cb', 'http://localhost:3000/cb'],
  })
  assert.equal(created.error, null)
  const c = created.data
  assert.equal(c.client_type, 'confidential')
  assert.equal(c.token_endpoint_auth_method, 'client_secret_basic')
  assert.deepEqual(c.grant_types, ['authorization_code', 'refresh_token'])
  assert.deepEqual(c.response_types, ['code'])
  assert.equal(c.registration_type, 'manual')
  assert.equal(typeof c.client_secret, 'string')
  const read = await admin().getClient(c.client_id)
  assert.equal(read.data.client_name, 'Bouquet planner')
  assert.equal(read.data.client_secret, undefined, 'the secret is shown once')
  const updated = await admin().updateClient(c.client_id, {
    logo_uri: 'https://client.example/logo.png',
  })
  assert.equal(updated.data.logo_uri, 'https://client.example/logo.png')
  assert.equal(updated.data.client_name, 'Bouquet planner')
  const listed = await admin().listClients()
  assert.ok(listed.data.clients.some((x) => x.client_id === c.client_id))
  const regenerated = await admin().regenerateClientSecret(c.client_id)
  assert.notEqual(regenerated.data.client_secret, c.client_secret)
  assert.equal((await admin().deleteClient(c.client_id)).error, null)
  const gone = await admin().getClient(c.client_id)
  assert.equal(gone.error.status, 404)
  assert.equal(gone.error.code, 'oauth_client_not_found')

  for (const [params, says] of [
    [{ client_name: 'x', redirect_uris: [] }, /redirect_uris is required/],
    [{ redirect_uris: ['http://client.example/cb'] }, /HTTP scheme only allowed for localhost/],
    [
      { redirect_uris: ['https://client.example/cb'], grant_types: ['password'] },
      /grant_types must only contain/,
    ],
  ]) {
    const refused = await admin().createClient(params)
    assert.equal(refused.error.status, 400)
    assert.match(refused.error.message, says)
  }
  const notAdmin = await client(gw).auth.admin.oauth.listClients()
  assert.equal(notAdmin.error.status, 403)
})

test('dynamic registration and the metadata document', async () => {
  const res = await auth('/oauth/clients/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'CLI tool',
      redirect_uris: ['http://127.0.0.1:8976/cb'],
      token_endpoint_auth_method: 'none',
    }),
  })
  assert.equal(res.status, 201)
  const body = await res.json()
  assert.equal(body.client_type, 'public')
  assert.equal(body.registration_type, 'dynamic')
  assert.equal(body.client_secret, undefined)
  const meta = await (await auth('/.well-known/oauth-authorization-server')).json()
  assert.equal(meta.issuer, `${gw.url}/auth/v1`)
  assert.equal(meta.token_endpoint, `${gw.url}/auth/v1/oauth/token`)
  assert.equal(meta.registration_endpoint, `${gw.url}/auth/v1/oauth/clients/register`)
  assert.deepEqual(meta.code_challenge_methods_supported, ['S256', 'plain'])
})

test('authorization code with PKCE: consent, tokens for the client, refresh, reuse and bad secrets refused', async () => {
  const made = (
    await admin().createClient({
      client_name: 'Planner',
      redirect_uris: ['https://client.example/cb'],
    })
  ).data
  const basic = `${made.client_id}:${made.client_secret}`
  const user = await signedInUser()
  const { id, verifier } = await authorize(made.client_id, { scope: 'email profile' })

  const details = await user.c.auth.oauth.getAuthorizationDetails(id)
  assert.equal(details.error, null)
  assert.equal(details.data.authorization_id, id)
  assert.equal(details.data.client.name, 'Planner')
  assert.equal(details.data.user.email, user.email)
  assert.equal(details.data.scope, 'email profile')
  const someoneElse = await signedInUser()
  assert.equal((await someoneElse.c.auth.oauth.getAuthorizationDetails(id)).error.status, 404)

  const approved = await user.c.auth.oauth.approveAuthorization(id, { skipBrowserRedirect: true })
  assert.equal(approved.error, null)
  const back = new URL(approved.data.redirect_url)
  assert.equal(`${back.origin}${back.pathname}`, 'https://client.example/cb')
  assert.equal(back.searchParams.get('state'), 'xyz')
  const code = back.searchParams.get('code')

  const wrongVerifier = await tokenRequest(
    { grant_type: 'authorization_code', code, code_verifier: 'x'.repeat(43) },
    basic,
  )
  assert.equal(wrongVerifier.status, 400)
  assert.equal((await wrongVerifier.json()).error, 'invalid_grant')
  const wrongSecret = await tokenRequest(
    { grant_type: 'authorization_code', code, code_verifier: verifier },
    `${made.client_id}:nope`,
  )
  assert.equal(wrongSecret.status, 401)
  assert.equal((await wrongSecret.json()).error, 'invalid_client')

  const granted = await tokenRequest(
    {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: 'https://client.example/cb',
    },
    basic,
  )
  assert.equal(granted.status, 200)
  const tokens = await granted.json()
  assert.deepEqual(Object.keys(tokens).sort(), [
    'access_token',
    'expires_in',
    'refresh_token',
    'token_type',
  ])
  const claims = claimsOf(tokens.access_token)
  assert.equal(claims.sub, user.id)
  assert.equal(claims.client_id, made.client_id)
  const me = await auth('/user', {
    headers: { apikey: gw.anonKey, authorization: `Bearer ${tokens.access_token}` },
  })
  assert.equal((await me.json()).email, user.email)

  const reused = await tokenRequest(
    { grant_type: 'authorization_code', code, code_verifier: verifier },
    basic,
  )
  assert.equal((await reused.json()).error, 'invalid_grant')

  const refreshed = await tokenRequest(
    { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
    basic,
  )
  assert.equal(refreshed.status, 200)
  const again = await refreshed.json()
  assert.notEqual(again.refresh_token, tokens.refresh_token)
  // Another client cannot use this client's refresh token.
  const other = (await admin().createClient({ redirect_uris: ['https://other.example/cb'] })).data
  const stolen = await tokenRequest(
    { grant_type: 'refresh_token', refresh_token: again.refresh_token },
    `${other.client_id}:${other.client_secret}`,
  )
  assert.equal((await stolen.json()).error, 'invalid_grant')

  // Consent given: the next authorization of the same scopes is approved without asking.
  const second = await authorize(made.client_id, { scope: 'email' })
  const auto = await user.c.auth.oauth.getAuthorizationDetails(second.id)
  assert.match(auto.data.redirect_url, /^https:\/\/client\.example\/cb\?code=/)

  const grants = await user.c.auth.oauth.listGrants()
  assert.deepEqual(
    grants.data.map((g) => g.client.id),
    [made.client_id],
  )
  assert.deepEqual(grants.data[0].scopes, ['email', 'profile'])
  assert.equal((await user.c.auth.oauth.revokeGrant({ clientId: made.client_id })).error, null)
  const revoked = await tokenRequest(
    { grant_type: 'refresh_token', refresh_token: again.refresh_token },
    basic,
  )
  assert.equal((await revoked.json()).error, 'invalid_grant')
})

test('a denied request, and requests the server refuses', async () => {
  const made = (await admin().createClient({ redirect_uris: ['https://client.example/cb'] })).data
  const user = await signedInUser()
  const { id } = await authorize(made.client_id)
  // A decision counts only for the user the consent page showed the request to.
  assert.equal(
    (await user.c.auth.oauth.denyAuthorization(id, { skipBrowserRedirect: true })).error.status,
    404,
  )
  assert.equal((await user.c.auth.oauth.getAuthorizationDetails(id)).data.scope, 'email')
  const denied = await user.c.auth.oauth.denyAuthorization(id, { skipBrowserRedirect: true })
  const back = new URL(denied.data.redirect_url)
  assert.equal(back.searchParams.get('error'), 'access_denied')
  assert.equal(back.searchParams.get('state'), 'xyz')
  assert.equal(
    (await user.c.auth.oauth.approveAuthorization(id, { skipBrowserRedirect: true })).error.status,
    400,
  )

  const q = (o) => auth(`/oauth/authorize?${new URLSearchParams(o)}`)
  const base = {
    client_id: made.client_id,
    redirect_uri: 'https://client.example/cb',
    code_challenge: 'c'.repeat(43),
    code_challenge_method: 'S256',
  }
  for (const [params, says] of [
    [{ ...base, redirect_uri: 'https://evil.example/cb' }, 'invalid redirect_uri'],
    [
      { ...base, code_challenge: undefined },
      'PKCE flow requires both code_challenge and code_challenge_method',
    ],
    [{ ...base, response_type: 'token' }, 'Only response_type=code is supported'],
    [{ ...base, client_id: '00000000-0000-0000-0000-000000000000' }, 'invalid client_id'],
  ]) {
    const res = await q(
      Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)),
    )
    assert.equal(res.status, 400)
    assert.equal((await res.json()).msg, says)
  }
  const noClient = await tokenRequest({ grant_type: 'authorization_code', code: 'x' })
  assert.equal(noClient.status, 401)
})
