// Sign-in with an OAuth provider through supabase-js and supagate's local stand-in (GitHub with
// no secret, in local development): the browser's round trip followed by hand — /authorize, the
// stand-in's page, /callback, back to the app — implicit and PKCE, a returning identity, an
// identity linked to a signed-in user; and a tampered state or a reused code refused.
// Project: tests/fixtures/auth-flows.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { startGateway, repoRoot } from '../support/gateway.mjs'
import {
  client,
  oidcKey,
  projectWith,
  sendJson,
  standIn as fakeProvider,
  uniqueEmail,
} from './helpers.mjs'

let gw
before(async () => {
  gw = await startGateway({ workdir: join(repoRoot, 'tests/fixtures/auth-flows') })
})
after(async () => gw?.stop())

const APP = 'http://localhost:5173/welcome'
const manual = (url, init = {}) => fetch(url, { redirect: 'manual', ...init })

/** Follows /authorize to the stand-in's page (linking hands out the page's URL itself): the
 * page's HTML and the state it carries. */
async function standIn(url) {
  const first = await manual(url)
  const pageUrl = first.status === 302 ? first.headers.get('location') : url
  const page = first.status === 302 ? await manual(pageUrl) : first
  assert.equal(page.status, 200)
  const html = await page.text()
  return {
    html,
    pageUrl,
    state: html.match(/name="state" value="([^"]+)"/)[1].replaceAll('&amp;', '&'),
  }
}

/** Submits the stand-in's form; follows /callback: the URL the app is sent to. */
async function choose(pageUrl, fields) {
  const sent = await manual(pageUrl.split('?')[0], {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  })
  assert.equal(sent.status, 303, await sent.clone().text())
  const back = await manual(sent.headers.get('location'))
  assert.equal(back.status, 302)
  return { callback: sent.headers.get('location'), app: new URL(back.headers.get('location')) }
}

const fragment = (u) => new URLSearchParams(u.hash.slice(1))

test('sign in with GitHub through the stand-in: a new account, then the same one again', async () => {
  const c = client(gw)
  const { data } = await c.auth.signInWithOAuth({
    provider: 'github',
    options: { redirectTo: APP, skipBrowserRedirect: true },
  })
  const { html, pageUrl, state } = await standIn(data.url)
  assert.match(html, /Sign in with Github/)
  assert.match(html, /stands in for Github/)
  const email = uniqueEmail('octo')
  const { app } = await choose(pageUrl, { state, name: 'Octo Cat', email })
  assert.equal(`${app.origin}${app.pathname}`, APP)
  const tokens = fragment(app)
  const set = await c.auth.setSession({
    access_token: tokens.get('access_token'),
    refresh_token: tokens.get('refresh_token'),
  })
  assert.equal(set.error, null)
  const {
    data: { user },
  } = await c.auth.getUser()
  assert.equal(user.email, email)
  assert.equal(user.app_metadata.provider, 'github')
  assert.equal(user.identities[0].provider, 'github')
  assert.equal(user.user_metadata.full_name, 'Octo Cat')
  const sub = user.identities[0].id

  // The page now offers the account; picking it signs the same user in.
  const again = await client(gw).auth.signInWithOAuth({
    provider: 'github',
    options: { redirectTo: APP, skipBrowserRedirect: true },
  })
  const second = await standIn(again.data.url)
  assert.ok(second.html.includes(`value="${sub}"`))
  const { app: back } = await choose(second.pageUrl, { state: second.state, sub })
  const claims = JSON.parse(
    Buffer.from(fragment(back).get('access_token').split('.')[1], 'base64url'),
  )
  assert.equal(claims.sub, user.id)
  assert.deepEqual(
    claims.amr.map((a) => a.method),
    ['oauth'],
  )
})

test('PKCE: the app gets a code it exchanges for the session; a code and a state work once', async () => {
  const store = new Map()
  const { createClient } = await import('@supabase/supabase-js')
  const WebSocket = (await import('ws')).default
  const c = createClient(gw.url, gw.anonKey, {
    realtime: { transport: WebSocket },
    auth: {
      flowType: 'pkce',
      persistSession: true,
      autoRefreshToken: false,
      storage: {
        getItem: (k) => store.get(k) ?? null,
        setItem: (k, v) => void store.set(k, v),
        removeItem: (k) => void store.delete(k),
      },
    },
  })
  const { data } = await c.auth.signInWithOAuth({
    provider: 'github',
    options: { redirectTo: APP, skipBrowserRedirect: true },
  })
  assert.match(data.url, /code_challenge=/)
  const { pageUrl, state } = await standIn(data.url)
  const email = uniqueEmail('pkce-octo')
  const { app, callback } = await choose(pageUrl, { state, name: 'Pkce Cat', email })
  const code = app.searchParams.get('code')
  assert.ok(code)
  const exchanged = await c.auth.exchangeCodeForSession(code)
  assert.equal(exchanged.error, null)
  assert.equal(exchanged.data.user.email, email)

  const replay = new URL((await manual(callback)).headers.get('location'))
  assert.equal(fragment(replay).get('error_code'), 'bad_oauth_callback')
  const forged = await manual(`${gw.url}/auth/v1/callback?code=x&state=${state.slice(0, -4)}AAAA`)
  assert.equal(
    fragment(new URL(forged.headers.get('location'))).get('error_code'),
    'bad_oauth_state',
  )
  const page = await manual(pageUrl.replace(/state=[^&]+/, 'state=nope'))
  assert.equal(page.status, 400)

  // A code is good with the state it was made for only.
  const one = await standIn(
    (
      await c.auth.signInWithOAuth({
        provider: 'github',
        options: { redirectTo: APP, skipBrowserRedirect: true },
      })
    ).data.url,
  )
  const two = await standIn(
    (
      await c.auth.signInWithOAuth({
        provider: 'github',
        options: { redirectTo: APP, skipBrowserRedirect: true },
      })
    ).data.url,
  )
  const made = await manual(one.pageUrl.split('?')[0], {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ state: one.state, name: 'Swap Cat', email: uniqueEmail('swap') }),
  })
  const swapped = new URL(made.headers.get('location'))
  swapped.searchParams.set('state', two.state)
  const mixed = await manual(swapped.toString())
  assert.equal(
    fragment(new URL(mixed.headers.get('location'))).get('error_code'),
    'bad_oauth_callback',
  )
})

test('a signed-in user links a GitHub identity; another user cannot take it', async () => {
  const email = uniqueEmail('linker')
  const admin = client(gw, gw.serviceKey)
  await admin.auth.admin.createUser({ email, password: 'link-pass-1', email_confirm: true })
  const c = client(gw)
  await c.auth.signInWithPassword({ email, password: 'link-pass-1' })
  const { data, error } = await c.auth.linkIdentity({
    provider: 'github',
    options: { redirectTo: APP, skipBrowserRedirect: true },
  })
  assert.equal(error, null)
  const { pageUrl, state } = await standIn(data.url)
  const { app } = await choose(pageUrl, { state, name: 'Linked Cat', email: uniqueEmail('gh') })
  await c.auth.setSession({
    access_token: fragment(app).get('access_token'),
    refresh_token: fragment(app).get('refresh_token'),
  })
  const { data: ids } = await c.auth.getUserIdentities()
  assert.deepEqual(ids.identities.map((i) => i.provider).sort(), ['email', 'github'])
  const gh = ids.identities.find((i) => i.provider === 'github')

  const other = uniqueEmail('thief')
  await admin.auth.admin.createUser({ email: other, password: 'link-pass-1', email_confirm: true })
  const thief = client(gw)
  await thief.auth.signInWithPassword({ email: other, password: 'link-pass-1' })
  const attempt = await thief.auth.linkIdentity({
    provider: 'github',
    options: { redirectTo: APP, skipBrowserRedirect: true },
  })
  const s = await standIn(attempt.data.url)
  const { app: refused } = await choose(s.pageUrl, { state: s.state, sub: gh.id })
  assert.equal(fragment(refused).get('error_code'), 'identity_already_exists')
})

test('signInWithIdToken: a Keycloak realm’s ID token, its signature, audience and nonce checked', async () => {
  const { createHash } = await import('node:crypto')
  const { sign, serve } = await oidcKey()
  const realm = await fakeProvider(
    (r, res) => serve(r, res, `${realm.url}/realms/shop`) || sendJson(res, 404, {}),
  )
  const issuer = `${realm.url}/realms/shop`
  const now = Math.floor(Date.now() / 1000)
  const hash = (n) => createHash('sha256').update(n).digest('hex')
  const claims = (over = {}) => ({
    iss: issuer,
    aud: 'shop-app',
    sub: 'kc-7',
    email: 'Kay@Example.com',
    email_verified: true,
    name: 'Kay',
    iat: now,
    exp: now + 300,
    nonce: hash('n-1'),
    ...over,
  })
  const project = await projectWith('id-token', [
    '[auth.external.keycloak]',
    'enabled = true',
    'client_id = "shop-app"',
    `url = "${issuer}"`,
  ])
  const kc = await startGateway({ workdir: project.dir })
  try {
    const first = await client(kc).auth.signInWithIdToken({
      provider: 'keycloak',
      token: sign(claims()),
      nonce: 'n-1',
    })
    assert.equal(first.error, null)
    assert.equal(first.data.user.email, 'kay@example.com')
    assert.equal(first.data.user.app_metadata.provider, 'keycloak')
    const again = await client(kc).auth.signInWithIdToken({
      provider: 'keycloak',
      token: sign(claims()),
      nonce: 'n-1',
    })
    assert.equal(again.data.user.id, first.data.user.id, 'the same identity, the same user')
    // (claims, nonce sent, the error)
    const refused = [
      [claims({ aud: 'someone-else' }), 'n-1', /Bad ID token/],
      [claims({ exp: now - 3600 }), 'n-1', /Bad ID token/],
      [claims({ iss: 'http://127.0.0.1:1/realms/other' }), 'n-1', /Bad ID token/],
      [claims(), 'n-2', /Nonces mismatch/],
      [claims(), undefined, /Passed nonce and nonce in id_token should either both exist or not/],
    ]
    for (const [c, nonce, message] of refused) {
      const { error } = await client(kc).auth.signInWithIdToken({
        provider: 'keycloak',
        token: sign(c),
        nonce,
      })
      assert.match(error?.message ?? '', message, JSON.stringify(c))
      assert.equal(error.status, 400)
    }
    const forged = sign(claims()).split('.')
    forged[2] = sign(claims({ sub: 'x' })).split('.')[2]
    assert.match(
      (
        await client(kc).auth.signInWithIdToken({
          provider: 'keycloak',
          token: forged.join('.'),
          nonce: 'n-1',
        })
      ).error.message,
      /Bad ID token/,
    )
    // A provider that is not on answers as GoTrue does.
    const off = await client(kc).auth.signInWithIdToken({
      provider: 'google',
      token: sign(claims()),
    })
    assert.match(
      off.error.message,
      /Provider \(issuer "https:\/\/accounts.google.com"\) is not enabled/,
    )
  } finally {
    await kc.stop()
    realm.close()
    project.remove()
  }
})

test('with a client id and secret, sign-in goes through the provider itself (GitHub Enterprise stand-in)', async () => {
  const github = await fakeProvider((r, res) => {
    if (r.path === '/login/oauth/authorize') {
      res.writeHead(302, {
        location: `${r.query.get('redirect_uri')}?code=gh-code&state=${encodeURIComponent(r.query.get('state'))}`,
      })
      return res.end()
    }
    if (r.path === '/login/oauth/access_token') {
      const ok =
        r.form.get('code') === 'gh-code' &&
        r.form.get('client_id') === 'gh-client' &&
        r.form.get('client_secret') === 'gh-secret'
      return sendJson(
        res,
        200,
        ok ? { access_token: 'gho_1', token_type: 'bearer' } : { error: 'bad_verification_code' },
      )
    }
    if (r.auth !== 'Bearer gho_1') return sendJson(res, 401, { message: 'Bad credentials' })
    if (r.path === '/api/v3/user')
      return sendJson(res, 200, {
        id: 9001,
        login: 'octo',
        name: 'Octo Cat',
        avatar_url: 'https://git.example/avatar.png',
      })
    if (r.path === '/api/v3/user/emails')
      return sendJson(res, 200, [{ email: 'Octo@Example.com', primary: true, verified: true }])
    sendJson(res, 404, {})
  })
  const seen = github.got
  const project = await projectWith('real-github', [
    '[auth]',
    'site_url = "http://localhost:5173"',
    'additional_redirect_urls = ["http://localhost:5173/welcome"]',
    '[auth.external.github]',
    'enabled = true',
    'client_id = "gh-client"',
    'secret = "gh-secret"',
    `url = "${github.url}"`,
  ])
  const real = await startGateway({ workdir: project.dir })
  try {
    const start = await manual(
      `${real.url}/auth/v1/authorize?provider=github&redirect_to=${encodeURIComponent(APP)}`,
    )
    assert.equal(start.status, 302)
    const toProvider = new URL(start.headers.get('location'))
    assert.equal(toProvider.origin + toProvider.pathname, `${github.url}/login/oauth/authorize`)
    assert.equal(toProvider.searchParams.get('client_id'), 'gh-client')
    assert.equal(toProvider.searchParams.get('redirect_uri'), `${real.url}/auth/v1/callback`)
    assert.equal(toProvider.searchParams.get('scope'), 'user:email')
    const back = await manual(toProvider.href)
    const landed = await manual(back.headers.get('location'))
    const to = landed.headers.get('location')
    assert.ok(to.startsWith(`${APP}#access_token=`), to)
    const token = new URLSearchParams(to.split('#')[1]).get('access_token')
    const { data } = await client(real).auth.getUser(token)
    assert.equal(data.user.email, 'octo@example.com')
    assert.equal(data.user.app_metadata.provider, 'github')
    assert.equal(data.user.user_metadata.user_name, 'octo')
    assert.equal(data.user.identities[0].identity_data.sub, '9001')
    const exchange = seen.find((s) => s.path === '/login/oauth/access_token')
    assert.equal(exchange.form.get('redirect_uri'), `${real.url}/auth/v1/callback`)
    // A code the provider does not know: back to the app with the error.
    const state = toProvider.searchParams.get('state')
    const bad = await manual(
      `${real.url}/auth/v1/callback?code=forged&state=${encodeURIComponent(state)}`,
    )
    assert.match(
      bad.headers.get('location'),
      /#error=invalid_request&error_code=bad_oauth_callback/,
    )
  } finally {
    await real.stop()
    github.close()
    project.remove()
  }
})
