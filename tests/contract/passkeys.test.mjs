// Passkeys through the real supabase-js, with a software authenticator of our own (a P-256 key,
// "none" attestation): registration, sign-in by the discoverable passkey, list, rename, delete,
// the admin API's view; and GoTrue's answers to a replayed assertion, an unknown challenge, an
// assertion for another origin, an authenticator nobody registered and a deleted passkey. Then a
// WebAuthn MFA factor bound to the same kind of authenticator, raising a session to aal2.
// Project: tests/fixtures/auth-flows ([auth.passkey] on, RP localhost).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { createHash, createSign, generateKeyPairSync, randomBytes } from 'node:crypto'
import { createClient } from '@supabase/supabase-js'
import WebSocket from 'ws'
import { startGateway, repoRoot } from '../support/gateway.mjs'
import { uniqueEmail } from './helpers.mjs'

let gw
before(async () => {
  gw = await startGateway({ workdir: join(repoRoot, 'tests/fixtures/auth-flows') })
})
after(async () => gw?.stop())

const ORIGIN = 'http://localhost:5173'
const b64u = (b) => Buffer.from(b).toString('base64url')

/** The CBOR this needs: unsigned and negative integers, byte and text strings, maps. */
function cbor(v) {
  const head = (major, n) =>
    n < 24
      ? Buffer.from([(major << 5) | n])
      : n < 256
        ? Buffer.from([(major << 5) | 24, n])
        : Buffer.from([(major << 5) | 25, n >> 8, n & 255])
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v)
  if (typeof v === 'string') return Buffer.concat([head(3, Buffer.byteLength(v)), Buffer.from(v)])
  if (Buffer.isBuffer(v)) return Buffer.concat([head(2, v.length), v])
  const entries = v instanceof Map ? [...v] : Object.entries(v)
  return Buffer.concat([
    head(5, entries.length),
    ...entries.flatMap(([k, x]) => [cbor(k), cbor(x)]),
  ])
}

/** What a browser's authenticator answers, for one credential. */
class Authenticator {
  constructor(origin = ORIGIN) {
    this.origin = origin
    this.id = randomBytes(16)
    this.count = 0
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    this.key = privateKey
    const { x, y } = publicKey.export({ format: 'jwk' })
    this.cose = cbor(
      new Map([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(x, 'base64url')],
        [-3, Buffer.from(y, 'base64url')],
      ]),
    )
  }

  clientData(type, challenge) {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }))
  }

  create(options) {
    this.user = options.user.id
    const rpHash = createHash('sha256').update(options.rp.id).digest()
    const authData = Buffer.concat([
      rpHash,
      Buffer.from([0x45, 0, 0, 0, 0]),
      Buffer.alloc(16),
      Buffer.from([0, this.id.length]),
      this.id,
      this.cose,
    ])
    return {
      id: b64u(this.id),
      rawId: b64u(this.id),
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(this.clientData('webauthn.create', options.challenge)),
        attestationObject: b64u(cbor({ fmt: 'none', attStmt: {}, authData })),
        transports: ['internal'],
      },
    }
  }

  get(options) {
    this.count += 1
    const rpHash = createHash('sha256').update(options.rpId).digest()
    const authData = Buffer.concat([
      rpHash,
      Buffer.from([0x05]),
      Buffer.from([0, 0, 0, this.count]),
    ])
    const clientData = this.clientData('webauthn.get', options.challenge)
    const signature = createSign('sha256')
      .update(Buffer.concat([authData, createHash('sha256').update(clientData).digest()]))
      .sign(this.key)
    return {
      id: b64u(this.id),
      rawId: b64u(this.id),
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(clientData),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        userHandle: this.user,
      },
    }
  }
}

const passkeyClient = (key = gw.anonKey) => {
  const store = new Map()
  return createClient(gw.url, key, {
    realtime: { transport: WebSocket },
    auth: {
      persistSession: true,
      autoRefreshToken: false,
      experimental: { passkey: true },
      storage: {
        getItem: (k) => store.get(k) ?? null,
        setItem: (k, v) => void store.set(k, v),
        removeItem: (k) => void store.delete(k),
      },
    },
  }).auth
}

async function userWithPasskey() {
  const auth = passkeyClient()
  const email = uniqueEmail('passkey')
  const made = await passkeyClient(gw.serviceKey).admin.createUser({
    email,
    password: 'passkey-pass-1',
    email_confirm: true,
  })
  assert.equal((await auth.signInWithPassword({ email, password: 'passkey-pass-1' })).error, null)
  const device = new Authenticator()
  const { data: options, error } = await auth.passkey.startRegistration()
  assert.equal(error, null)
  assert.equal(options.options.rp.id, 'localhost')
  assert.equal(options.options.rp.name, 'Bluebell & Sage')
  assert.equal(options.options.authenticatorSelection.residentKey, 'required')
  const created = await auth.passkey.verifyRegistration({
    challengeId: options.challenge_id,
    credential: device.create(options.options),
  })
  assert.equal(created.error, null)
  return { auth, device, userId: made.data.user.id, passkeyId: created.data.id }
}

test('register a passkey, sign in with it, rename, list and delete it', async () => {
  const { auth, device, userId, passkeyId } = await userWithPasskey()
  const stranger = passkeyClient()
  const { data: options } = await stranger.passkey.startAuthentication()
  assert.deepEqual(options.options.allowCredentials, [])
  const signedIn = await stranger.passkey.verifyAuthentication({
    challengeId: options.challenge_id,
    credential: device.get(options.options),
  })
  assert.equal(signedIn.error, null)
  assert.equal(signedIn.data.user.id, userId)
  assert.equal((await stranger.getUser()).data.user.id, userId)

  const renamed = await auth.passkey.update({ passkeyId, friendlyName: 'Shop laptop' })
  assert.equal(renamed.data.friendly_name, 'Shop laptop')
  const listed = await auth.passkey.list()
  assert.deepEqual(
    listed.data.map((p) => [p.id, p.friendly_name, typeof p.last_used_at]),
    [[passkeyId, 'Shop laptop', 'string']],
  )
  const adminView = await passkeyClient(gw.serviceKey).admin.passkey.listPasskeys({ userId })
  assert.deepEqual(
    adminView.data.map((p) => p.id),
    [passkeyId],
  )

  assert.equal((await auth.passkey.delete({ passkeyId })).error, null)
  const { data: again } = await stranger.passkey.startAuthentication()
  const gone = await stranger.passkey.verifyAuthentication({
    challengeId: again.challenge_id,
    credential: device.get(again.options),
  })
  assert.equal(gone.error.code, 'webauthn_verification_failed')
})

test('replays, unknown challenges, other origins and unregistered authenticators are refused', async () => {
  const { auth, device } = await userWithPasskey()
  const c = passkeyClient()
  const { data: options } = await c.passkey.startAuthentication()
  const assertion = device.get(options.options)
  assert.equal(
    (
      await c.passkey.verifyAuthentication({
        challengeId: options.challenge_id,
        credential: assertion,
      })
    ).error,
    null,
  )
  const replayed = await c.passkey.verifyAuthentication({
    challengeId: options.challenge_id,
    credential: assertion,
  })
  assert.equal(replayed.error.code, 'webauthn_challenge_not_found')
  const unknown = await auth.passkey.verifyRegistration({
    challengeId: '00000000-0000-0000-0000-000000000000',
    credential: new Authenticator().create((await auth.passkey.startRegistration()).data.options),
  })
  assert.equal(unknown.error.code, 'webauthn_challenge_not_found')

  const phishing = new Authenticator('https://evil.example')
  const { data: reg } = await auth.passkey.startRegistration()
  const refused = await auth.passkey.verifyRegistration({
    challengeId: reg.challenge_id,
    credential: phishing.create(reg.options),
  })
  assert.equal(refused.error.code, 'webauthn_verification_failed')
  assert.match(refused.error.message, /origin not allowed/)

  const { data: fresh } = await c.passkey.startAuthentication()
  const stranger = new Authenticator()
  stranger.user = 'nobody'
  const unregistered = await c.passkey.verifyAuthentication({
    challengeId: fresh.challenge_id,
    credential: stranger.get(fresh.options),
  })
  assert.equal(unregistered.error.code, 'webauthn_verification_failed')
  const noSession = await passkeyClient().passkey.startRegistration()
  assert.equal(noSession.error.name, 'AuthSessionMissingError')
})

test('a WebAuthn factor: created on its first challenge, then signing raises the session to aal2', async () => {
  const auth = passkeyClient()
  const email = uniqueEmail('webauthn-mfa')
  await passkeyClient(gw.serviceKey).admin.createUser({
    email,
    password: 'mfa-pass-1',
    email_confirm: true,
  })
  const { data: signedIn } = await auth.signInWithPassword({ email, password: 'mfa-pass-1' })
  const call = async (path, body) => {
    const token = (await auth.getSession()).data.session.access_token
    const res = await fetch(`${gw.url}/auth/v1${path}`, {
      method: 'POST',
      headers: {
        apikey: gw.anonKey,
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    })
    return { status: res.status, body: await res.json() }
  }
  const rp = { rpId: 'localhost', rpOrigins: [ORIGIN] }
  const enrolled = await auth.mfa.enroll({ factorType: 'webauthn', friendlyName: 'Security key' })
  assert.equal(enrolled.error, null)
  const factor = enrolled.data.id
  const device = new Authenticator()

  const first = await call(`/factors/${factor}/challenge`, { webauthn: rp })
  assert.equal(first.body.webauthn.type, 'create')
  const creation = first.body.webauthn.credential_options.publicKey
  assert.equal(creation.rp.id, 'localhost')
  const created = await call(`/factors/${factor}/verify`, {
    challenge_id: first.body.id,
    webauthn: { ...rp, type: 'create', credential_response: device.create(creation) },
  })
  assert.equal(created.status, 200, JSON.stringify(created.body))
  assert.equal(
    JSON.parse(Buffer.from(created.body.access_token.split('.')[1], 'base64url')).aal,
    'aal2',
  )

  await auth.setSession({
    access_token: signedIn.session.access_token,
    refresh_token: signedIn.session.refresh_token,
  })
  const second = await call(`/factors/${factor}/challenge`, { webauthn: rp })
  assert.equal(second.body.webauthn.type, 'request')
  const request = second.body.webauthn.credential_options.publicKey
  const impostor = new Authenticator()
  impostor.user = device.user
  const refused = await call(`/factors/${factor}/verify`, {
    challenge_id: second.body.id,
    webauthn: { ...rp, type: 'request', credential_response: impostor.get(request) },
  })
  assert.equal(refused.status, 422)
  assert.equal(refused.body.error_code ?? refused.body.code, 'mfa_verification_failed')
  const third = await call(`/factors/${factor}/challenge`, { webauthn: rp })
  const signed = await call(`/factors/${factor}/verify`, {
    challenge_id: third.body.id,
    webauthn: {
      ...rp,
      type: 'request',
      credential_response: device.get(third.body.webauthn.credential_options.publicKey),
    },
  })
  assert.equal(signed.status, 200, JSON.stringify(signed.body))
  const amr = JSON.parse(Buffer.from(signed.body.access_token.split('.')[1], 'base64url')).amr.map(
    (a) => a.method,
  )
  assert.ok(amr.includes('mfa/webauthn'), amr.join())
})
