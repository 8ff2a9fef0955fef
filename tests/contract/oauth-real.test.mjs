// Sign-in through the OAuth providers themselves (a client id and secret in config.toml), each
// provider played by a stand-in at its `url` (GoTrue's host override): the browser's round trip
// followed by hand — /authorize to the provider's page, its redirect to /callback with a code,
// the code exchanged (HTTP Basic first, then the form, as Go's oauth2 does; Kakao's form only),
// the user read from the provider's API with the headers GoTrue sends, or from the ID token of
// the token answer checked against the issuer's keys (Azure, LinkedIn, Apple's form POST) — and
// the provider's refusal handed back to the app.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startGateway } from '../support/gateway.mjs'
import { client, oidcKey, projectWith, sendJson, standIn } from './helpers.mjs'

const APP = 'http://localhost:5173/welcome'
const manual = (url, init = {}) => fetch(url, { redirect: 'manual', ...init })
const basic = (id, secret) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`

/** A provider's stand-in: its authorize page sends the browser straight back with a code; its
 * token endpoint takes the code with the client's credentials as `creds` allows (and answers
 * `extra()` beside the access token); `rest` answers everything else. */
async function provider(name, { authorize, token, creds = 'either', extra, rest }) {
  const { createHash } = await import('node:crypto')
  let challenge = null
  return standIn((r, res) => {
    if (r.path === authorize) {
      // A provider that wants PKCE of its own (X) checks the verifier against this.
      challenge =
        r.query.get('code_challenge_method') === 'S256' ? r.query.get('code_challenge') : null
      res.writeHead(302, {
        location: `${r.query.get('redirect_uri')}?code=${name}-code&state=${encodeURIComponent(r.query.get('state'))}`,
      })
      return res.end()
    }
    if (r.path === token) {
      const inForm =
        r.form.get('client_id') === `${name}-id` && r.form.get('client_secret') === `${name}-secret`
      const inHeader = r.auth === basic(`${name}-id`, `${name}-secret`)
      const verified =
        !challenge ||
        createHash('sha256')
          .update(r.form.get('code_verifier') ?? '')
          .digest('base64url') === challenge
      const ok =
        r.form.get('code') === `${name}-code` &&
        verified &&
        (creds === 'form' ? inForm && !r.auth : inForm || inHeader)
      return ok
        ? sendJson(res, 200, {
            access_token: `at-${name}`,
            refresh_token: `rt-${name}`,
            token_type: 'bearer',
            ...extra?.(),
          })
        : sendJson(res, 401, { error: 'invalid_client' })
    }
    return rest(r, res)
  })
}

/** /authorize → the provider → /callback (or the form POST `post` makes of it) → the app. */
async function roundTrip(gw, name, post) {
  const start = await manual(
    `${gw.url}/auth/v1/authorize?provider=${name}&redirect_to=${encodeURIComponent(APP)}`,
  )
  assert.equal(start.status, 302, name)
  const toProvider = new URL(start.headers.get('location'))
  const back = await manual(toProvider.href)
  const callback = new URL(back.headers.get('location'))
  const landed = post
    ? await manual(`${gw.url}/auth/v1/callback`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...Object.fromEntries(callback.searchParams), ...post }),
      })
    : await manual(callback.href)
  return { toProvider, app: landed.headers.get('location') }
}

async function signedInUser(gw, app) {
  assert.ok(app.startsWith(`${APP}#access_token=`), app)
  const token = new URLSearchParams(app.split('#')[1]).get('access_token')
  const { data, error } = await client(gw).auth.getUser(token)
  assert.equal(error, null)
  return data.user
}

test('providers read from their user API: each through a stand-in at its url', async () => {
  // [provider, authorize path, token path, scope, { path: answer }, what the user request must carry, sub, email, name]
  const table = [
    [
      'bitbucket',
      '/site/oauth2/authorize',
      '/site/oauth2/access_token',
      'account email',
      {
        '/2.0/user': {
          uuid: '{b-1}',
          display_name: 'Bea Bloom',
          avatar: { href: 'https://b/a.png' },
        },
        '/2.0/user/emails': {
          values: [{ email: 'Bea@Example.com', is_primary: true, is_confirmed: true }],
        },
      },
      null,
      '{b-1}',
      'bea@example.com',
      'Bea Bloom',
    ],
    [
      'facebook',
      '/dialog/oauth',
      '/oauth/access_token',
      'email',
      {
        '/me': {
          id: 'fb-1',
          email: 'fay@example.com',
          first_name: 'Fay',
          last_name: 'Lee',
          name: 'fay.lee',
          picture: { data: { url: 'https://f/p' } },
        },
      },
      (r) =>
        r.query.get('fields') === 'email,first_name,last_name,name,picture' &&
        /^[0-9a-f]{64}$/.test(r.query.get('appsecret_proof')),
      'fb-1',
      'fay@example.com',
      'Fay Lee',
    ],
    [
      'figma',
      '/oauth',
      '/v1/oauth/token',
      'current_user:read',
      {
        '/v1/me': { id: 'fg-1', email: 'fig@example.com', handle: 'Fig', img_url: 'https://fg/i' },
      },
      null,
      'fg-1',
      'fig@example.com',
      'Fig',
    ],
    [
      'fly',
      '/oauth/authorize',
      '/oauth/token',
      'read',
      {
        '/oauth/token/info': { user_id: 'fly-1', user_name: 'Flo', email: 'flo@example.com' },
      },
      null,
      'fly-1',
      'flo@example.com',
      'Flo',
    ],
    [
      'kakao',
      '/oauth/authorize',
      '/oauth/token',
      'account_email profile_image profile_nickname',
      {
        '/v2/user/me': {
          id: 4242,
          kakao_account: {
            email: 'kim@example.kr',
            is_email_valid: true,
            is_email_verified: true,
            profile: { nickname: 'Kim' },
          },
        },
      },
      null,
      '4242',
      'kim@example.kr',
      'Kim',
    ],
    [
      'notion',
      '/v1/oauth/authorize',
      '/v1/oauth/token',
      null,
      {
        '/v1/users/me': {
          bot: {
            owner: { user: { id: 'n-1', name: 'Nia', person: { email: 'nia@example.com' } } },
          },
        },
      },
      (r) => r.headers['notion-version'] === '2021-08-16',
      'n-1',
      'nia@example.com',
      'Nia',
    ],
    [
      'slack_oidc',
      '/openid/connect/authorize',
      '/api/openid.connect.token',
      'profile email openid',
      {
        '/api/openid.connect.userInfo': {
          'https://slack.com/user_id': 'U1',
          email: 'sam@example.com',
          email_verified: true,
          name: 'Sam',
        },
      },
      null,
      'U1',
      'sam@example.com',
      'Sam',
    ],
    [
      'spotify',
      '/authorize',
      '/api/token',
      'user-read-email',
      {
        '/me': { id: 'sp-1', display_name: 'Spo', email: 'spo@example.com', images: [] },
      },
      null,
      'sp-1',
      'spo@example.com',
      'Spo',
    ],
    [
      'twitch',
      '/oauth2/authorize',
      '/oauth2/token',
      'user:read:email',
      {
        '/helix/users': {
          data: [{ id: 'tw-1', login: 'tess', display_name: 'Tess', email: 'tess@example.com' }],
        },
      },
      (r) => r.headers['client-id'] === 'twitch-id',
      'tw-1',
      'tess@example.com',
      'tess',
    ],
    [
      'snapchat',
      '/accounts/oauth2/auth',
      '/accounts/oauth2/token',
      'https://auth.snapchat.com/oauth2/api/user.external_id https://auth.snapchat.com/oauth2/api/user.display_name https://auth.snapchat.com/oauth2/api/user.bitmoji.avatar',
      {
        '/v1/me': {
          data: {
            me: {
              externalId: 'sc-1',
              displayName: 'Sky',
              email: 'sky@example.com',
              bitmoji: { avatar: 'https://s/b' },
            },
          },
        },
      },
      (r) =>
        r.query.get('query') === '{me { externalId displayName bitmoji { avatar id } email } }',
      'sc-1',
      'sky@example.com',
      'Sky',
    ],
    [
      'workos',
      '/sso/authorize',
      '/sso/token',
      null,
      {
        token: {
          profile: { id: 'prof_1', email: 'wen@example.com', first_name: 'Wen', last_name: 'Ola' },
        },
      },
      null,
      'prof_1',
      'wen@example.com',
      'Wen Ola',
    ],
    [
      'x',
      '/i/oauth2/authorize',
      '/2/oauth2/token',
      'users.email tweet.read users.read offline.access',
      {
        '/2/users/me': {
          data: { id: 'x-1', name: 'Xan', username: 'xan', confirmed_email: 'xan@example.com' },
        },
      },
      (r) =>
        r.query.get('user.fields') ===
        'id,name,username,confirmed_email,profile_image_url,url,created_at',
      'x-1',
      'xan@example.com',
      'Xan',
    ],
    [
      'zoom',
      '/oauth/authorize',
      '/oauth/token',
      null,
      {
        '/v2/users/me': {
          id: 'z-1',
          first_name: 'Zoe',
          last_name: 'Ng',
          email: 'zoe@example.com',
          login_type: '1',
          verified: 1,
        },
      },
      null,
      'z-1',
      'zoe@example.com',
      'Zoe Ng',
    ],
  ]
  const stands = {}
  for (const [name, authorize, token, , answers, check] of table) {
    // The user API wants the access token, and what GoTrue adds for this provider.
    const rest = (r, res) => {
      if (r.auth !== `Bearer at-${name}` || (check && !check(r)))
        return sendJson(res, 401, { message: 'no' })
      const found = answers[r.path]
      return found ? sendJson(res, 200, found) : sendJson(res, 404, {})
    }
    const extra = answers.token && (() => answers.token)
    stands[name] = await provider(name, {
      authorize,
      token,
      creds: name === 'kakao' ? 'form' : 'either',
      extra,
      rest,
    })
  }
  const lines = [
    '[auth]',
    'site_url = "http://localhost:5173"',
    `additional_redirect_urls = ["${APP}"]`,
  ]
  for (const [name] of table) {
    lines.push(
      `[auth.external.${name}]`,
      'enabled = true',
      `client_id = "${name}-id"`,
      `secret = "${name}-secret"`,
      `url = "${stands[name].url}"`,
    )
  }
  const project = await projectWith('real-providers', lines)
  const gw = await startGateway({ workdir: project.dir })
  try {
    for (const [name, authorize, , scope, , , sub, email, fullName] of table) {
      const { toProvider, app } = await roundTrip(gw, name)
      assert.equal(toProvider.pathname, authorize, name)
      assert.equal(toProvider.searchParams.get('scope'), scope, name)
      assert.equal(toProvider.searchParams.get('client_id'), `${name}-id`, name)
      if (name === 'x') assert.equal(toProvider.searchParams.get('code_challenge_method'), 'S256')
      const user = await signedInUser(gw, app)
      const fragment = new URLSearchParams(app.split('#')[1])
      assert.deepEqual(
        [fragment.get('provider_token'), fragment.get('provider_refresh_token')],
        [`at-${name}`, `rt-${name}`],
        name,
      )
      assert.equal(user.email, email, name)
      assert.equal(user.app_metadata.provider, name, name)
      assert.equal(user.user_metadata.full_name, fullName, name)
      assert.equal(user.identities[0].identity_data.sub, sub, name)
    }
    const tokenCalls = stands.kakao.got.filter((r) => r.path === '/oauth/token')
    assert.equal(tokenCalls.length, 1, 'Kakao gets the credentials in the form, once')
    assert.equal(tokenCalls[0].auth, undefined)
  } finally {
    await gw.stop()
    for (const s of Object.values(stands)) s.close()
    project.remove()
  }
})

test('OpenID providers: the ID token of the token answer, checked against the issuer’s keys (Azure, LinkedIn, Apple’s form POST)', async () => {
  const { sign, serve } = await oidcKey()
  const now = Math.floor(Date.now() / 1000)
  let forge = false
  const idToken = (name, issuer, over = {}) => {
    const t = sign({
      iss: issuer,
      aud: `${name}-id`,
      sub: `${name}-sub`,
      email: `${name}@Example.com`,
      iat: now,
      exp: now + 300,
      ...over,
    })
    return forge ? `${t.slice(0, -4)}AAAA` : t
  }
  // [provider, authorize path, token path, issuer path, claims, name expected, Apple's posted user]
  const table = [
    [
      'azure',
      '/oauth2/v2.0/authorize',
      '/oauth2/v2.0/token',
      '/tenant-1/v2.0',
      { name: 'Aza', xms_edov: true },
      'Aza',
      null,
    ],
    [
      'linkedin_oidc',
      '/oauth/v2/authorization',
      '/oauth/v2/accessToken',
      '',
      { email_verified: 'true', given_name: 'Lu', family_name: 'Ma' },
      'Lu Ma',
      null,
    ],
    [
      'apple',
      '/auth/authorize',
      '/auth/token',
      '',
      { email_verified: 'true' },
      'Ann Apple',
      { user: JSON.stringify({ name: { firstName: 'Ann', lastName: 'Apple' } }) },
    ],
  ]
  const stands = {}
  for (const [name, authorize, token, issuerPath, claims] of table) {
    const s = await provider(name, {
      authorize,
      token,
      extra: () => ({ id_token: idToken(name, `${stands[name].url}${issuerPath}`, claims) }),
      rest: (r, res) => serve(r, res, `${stands[name].url}${issuerPath}`) || sendJson(res, 404, {}),
    })
    stands[name] = s
  }
  const lines = [
    '[auth]',
    'site_url = "http://localhost:5173"',
    `additional_redirect_urls = ["${APP}"]`,
  ]
  for (const [name] of table) {
    lines.push(
      `[auth.external.${name}]`,
      'enabled = true',
      `client_id = "${name}-id"`,
      `secret = "${name}-secret"`,
      `url = "${stands[name].url}"`,
    )
  }
  const project = await projectWith('oidc-providers', lines)
  const gw = await startGateway({ workdir: project.dir })
  try {
    for (const [name, authorize, , , , fullName, post] of table) {
      const { toProvider, app } = await roundTrip(gw, name, post)
      assert.equal(toProvider.pathname, authorize, name)
      if (name === 'apple') assert.equal(toProvider.searchParams.get('response_mode'), 'form_post')
      const user = await signedInUser(gw, app)
      assert.equal(user.email, `${name}@example.com`, name)
      assert.equal(user.identities[0].identity_data.sub, `${name}-sub`, name)
      assert.equal(user.identities[0].identity_data.email_verified, true, name)
      assert.equal(user.user_metadata.full_name, fullName, name)
    }
    // A token answer whose ID token is not signed by the issuer's key signs nobody in.
    forge = true
    const { app } = await roundTrip(gw, 'linkedin_oidc')
    assert.match(
      app,
      /#error=server_error&error_code=unexpected_failure&error_description=Error\+getting\+user\+profile\+from\+external\+provider$/,
    )
  } finally {
    await gw.stop()
    for (const s of Object.values(stands)) s.close()
    project.remove()
  }
})

test('the provider’s refusal goes back to the app in its words; a callback without a code is refused', async () => {
  const github = await provider('github', {
    authorize: '/login/oauth/authorize',
    token: '/login/oauth/access_token',
    rest: (_r, res) => sendJson(res, 404, {}),
  })
  const project = await projectWith('refusal', [
    '[auth]',
    'site_url = "http://localhost:5173"',
    `additional_redirect_urls = ["${APP}"]`,
    '[auth.external.github]',
    'enabled = true',
    'client_id = "github-id"',
    'secret = "github-secret"',
    `url = "${github.url}"`,
  ])
  const gw = await startGateway({ workdir: project.dir })
  try {
    const start = await manual(
      `${gw.url}/auth/v1/authorize?provider=github&redirect_to=${encodeURIComponent(APP)}`,
    )
    const state = new URL(start.headers.get('location')).searchParams.get('state')
    const denied = await manual(
      `${gw.url}/auth/v1/callback?error=access_denied&error_description=${encodeURIComponent('The user said no')}&state=${encodeURIComponent(state)}`,
    )
    assert.equal(
      denied.headers.get('location'),
      `${APP}#error=access_denied&error_description=The+user+said+no`,
    )
    const noCode = await manual(`${gw.url}/auth/v1/callback?state=${encodeURIComponent(state)}`)
    assert.match(
      noCode.headers.get('location'),
      /#error=invalid_request&error_code=bad_oauth_callback&error_description=OAuth\+callback\+with\+missing\+authorization\+code\+missing$/,
    )
  } finally {
    await gw.stop()
    github.close()
    project.remove()
  }
})

test('/authorize passes scopes and the app’s parameters on to the provider; PKCE hands the app the provider’s tokens', async () => {
  const { createHash } = await import('node:crypto')
  const github = await provider('github', {
    authorize: '/login/oauth/authorize',
    token: '/login/oauth/access_token',
    rest: (r, res) =>
      r.auth !== 'Bearer at-github'
        ? sendJson(res, 401, {})
        : r.path === '/api/v3/user'
          ? sendJson(res, 200, { id: 77, login: 'pk', name: 'Pia Kay' })
          : sendJson(res, 200, [{ email: 'pia@example.com', primary: true, verified: true }]),
  })
  const project = await projectWith('pass-on', [
    '[auth]',
    'site_url = "http://localhost:5173"',
    `additional_redirect_urls = ["${APP}"]`,
    '[auth.external.github]',
    'enabled = true',
    'client_id = "github-id"',
    'secret = "github-secret"',
    `url = "${github.url}"`,
  ])
  const gw = await startGateway({ workdir: project.dir })
  try {
    const verifier = 'v'.repeat(50)
    const challenge = createHash('sha256').update(verifier).digest('base64url')
    const query = new URLSearchParams({
      provider: 'github',
      redirect_to: APP,
      scopes: 'repo gist',
      prompt: 'consent',
      client_id: 'evil',
      code_challenge: challenge,
      code_challenge_method: 's256',
    })
    const start = await manual(`${gw.url}/auth/v1/authorize?${query}`)
    const toProvider = new URL(start.headers.get('location'))
    assert.equal(toProvider.searchParams.get('scope'), 'user:email repo gist')
    assert.equal(toProvider.searchParams.get('prompt'), 'consent')
    assert.deepEqual(
      toProvider.searchParams.getAll('client_id'),
      ['github-id'],
      'the server’s parameters are its own',
    )
    assert.equal(
      toProvider.searchParams.get('code_challenge'),
      null,
      'the app’s PKCE is not the provider’s',
    )
    const back = await manual(toProvider.href)
    const landed = await manual(back.headers.get('location'))
    const code = new URL(landed.headers.get('location')).searchParams.get('code')
    const exchanged = await fetch(`${gw.url}/auth/v1/token?grant_type=pkce`, {
      method: 'POST',
      headers: { apikey: gw.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ auth_code: code, code_verifier: verifier }),
    })
    const session = await exchanged.json()
    assert.equal(exchanged.status, 200, JSON.stringify(session))
    assert.deepEqual(
      [session.provider_token, session.provider_refresh_token],
      ['at-github', 'rt-github'],
    )
    assert.equal(session.user.email, 'pia@example.com')
  } finally {
    await gw.stop()
    github.close()
    project.remove()
  }
})
