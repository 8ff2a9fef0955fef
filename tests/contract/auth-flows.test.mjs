// GoTrue's flows through the real supabase-js, mail read from the built-in catcher's
// Mailpit API: confirmation links and codes, magic links, recovery, reauthentication, double
// e-mail change confirmation, PKCE, anonymous users, TOTP MFA, signing keys and the JWKS, the
// custom access token hook, invitations and generated links, notifications, and the answers
// for providers that are off. Project: tests/fixtures/auth-flows (confirmations on).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { createHmac } from 'node:crypto'
import { startGateway, repoRoot } from '../support/gateway.mjs'
import { client, uniqueEmail, psql as sqlAs } from './helpers.mjs'

const WORKDIR = join(repoRoot, 'tests/fixtures/auth-flows')
let gw
before(async () => {
  gw = await startGateway({ workdir: WORKDIR })
})
after(async () => gw?.stop())

const mailApi = (path, init) => fetch(`${gw.status.MAILPIT_URL}/api/v1${path}`, init)

/** The newest mail to `to` whose subject matches, as Mailpit returns it (Text, HTML, …). */
async function mailTo(to, subject = /./, { after = 0, within = 5000 } = {}) {
  const end = Date.now() + within
  while (Date.now() < end) {
    const list = await (await mailApi(`/search?query=${encodeURIComponent(`to:${to}`)}`)).json()
    const hit = list.messages.find((m) => subject.test(m.Subject) && Date.parse(m.Created) >= after)
    if (hit) return (await mailApi(`/message/${hit.ID}`)).json()
    await new Promise((r) => setTimeout(r, 50))
  }
  assert.fail(`no mail to ${to} matching ${subject}`)
}

const codeOf = (mail) => mail.Text.match(/\b(\d{6})\b/)?.[1]
const linkOf = (mail) => mail.HTML.match(/href="([^"]+)"/)[1].replaceAll('&amp;', '&')
const hashOf = (mail) => new URL(linkOf(mail)).searchParams.get('token')

const psql = (sql) => sqlAs(gw, sql)

/** A confirmed user, signed in. */
async function confirmedUser(password = 'flows-pass-1') {
  const email = uniqueEmail('flow')
  const c = client(gw)
  const t0 = Date.now() - 1000
  await c.auth.signUp({ email, password })
  const mail = await mailTo(email, /Confirm your email address/, { after: t0 })
  const { data, error } = await c.auth.verifyOtp({ token_hash: hashOf(mail), type: 'signup' })
  assert.equal(error, null)
  return { c, email, password, user: data.user, session: data.session }
}

/** RFC 6238 code of a base32 secret. */
function totp(secret, at = Date.now()) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  let bits = ''
  for (const ch of secret.replace(/=+$/, ''))
    bits += alphabet.indexOf(ch).toString(2).padStart(5, '0')
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)))
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30000)))
  const h = createHmac('sha1', key).update(counter).digest()
  const o = h[h.length - 1] & 15
  return String((h.readUInt32BE(o) & 0x7fffffff) % 1e6).padStart(6, '0')
}

test('sign-up mails a confirmation; the link signs in and redirects with the session', async () => {
  const email = uniqueEmail('confirm')
  const c = client(gw)
  const t0 = Date.now() - 1000
  const { data, error } = await c.auth.signUp({
    email,
    password: 'confirm-pass-1',
    options: { emailRedirectTo: 'http://localhost:5173/welcome' },
  })
  assert.equal(error, null)
  assert.equal(data.session, null)
  assert.equal(data.user.email, email)
  assert.ok(data.user.confirmation_sent_at)
  const early = await client(gw).auth.signInWithPassword({ email, password: 'confirm-pass-1' })
  assert.equal(early.error?.code, 'email_not_confirmed')
  const mail = await mailTo(email, /^Confirm your email address$/, { after: t0 })
  assert.match(mail.Text, /confirm this email address/)
  const link = linkOf(mail)
  assert.match(
    link,
    /\/auth\/v1\/verify\?token=[0-9a-f]{56}&type=signup&redirect_to=http%3A%2F%2Flocalhost%3A5173%2Fwelcome/,
  )
  const res = await fetch(link, { redirect: 'manual' })
  assert.equal(res.status, 303)
  const to = new URL(res.headers.get('location'))
  assert.equal(`${to.origin}${to.pathname}`, 'http://localhost:5173/welcome')
  const fragment = new URLSearchParams(to.hash.slice(1))
  assert.equal(fragment.get('type'), 'signup')
  assert.ok(fragment.get('access_token') && fragment.get('refresh_token'))
  const again = await fetch(link, { redirect: 'manual' })
  assert.match(new URL(again.headers.get('location')).hash, /error_code=otp_expired/)
  const { error: signInError } = await client(gw).auth.signInWithPassword({
    email,
    password: 'confirm-pass-1',
  })
  assert.equal(signInError, null)
  // A second sign-up of the confirmed address does not reveal it and mails nothing.
  const t1 = Date.now()
  const repeat = await client(gw).auth.signUp({ email, password: 'another-pass-1' })
  assert.equal(repeat.error, null)
  assert.notEqual(repeat.data.user.id, data.user.id)
  await new Promise((r) => setTimeout(r, 300))
  const list = await (await mailApi(`/search?query=${encodeURIComponent(`to:${email}`)}`)).json()
  assert.equal(list.messages.filter((m) => Date.parse(m.Created) >= t1).length, 0)
})

test('magic links and e-mailed codes sign in; unknown addresses need should_create_user', async () => {
  const { email } = await confirmedUser()
  const c = client(gw)
  const t0 = Date.now() - 1000
  assert.equal((await c.auth.signInWithOtp({ email })).error, null)
  const mail = await mailTo(email, /^Your sign-in link$/, { after: t0 })
  const { data, error } = await c.auth.verifyOtp({ email, token: codeOf(mail), type: 'email' })
  assert.equal(error, null)
  assert.equal(data.user.email, email)
  const amr = JSON.parse(Buffer.from(data.session.access_token.split('.')[1], 'base64url')).amr
  assert.equal(amr[0].method, 'otp')
  const unknown = await client(gw).auth.signInWithOtp({
    email: uniqueEmail('nobody'),
    options: { shouldCreateUser: false },
  })
  assert.equal(unknown.error?.code, 'otp_disabled')
  assert.equal(unknown.error?.message, 'Signups not allowed for otp')
  const wrong = await c.auth.verifyOtp({ email, token: '000000', type: 'email' })
  assert.equal(wrong.error?.code, 'otp_expired')
})

test('password recovery by token hash; password changes ask for a reauthentication nonce', async () => {
  const { email, user } = await confirmedUser()
  const c = client(gw)
  const t0 = Date.now() - 1000
  assert.equal((await c.auth.resetPasswordForEmail(email)).error, null)
  const mail = await mailTo(email, /^Reset your password$/, { after: t0 })
  const { data, error } = await c.auth.verifyOtp({ token_hash: hashOf(mail), type: 'recovery' })
  assert.equal(error, null)
  assert.equal(data.user.id, user.id)
  // A session older than a day must prove itself again before the password changes.
  psql(
    `update auth.sessions set created_at = now() - interval '2 days' where user_id = '${user.id}'`,
  )
  const refused = await c.auth.updateUser({ password: 'new-password-1' })
  assert.equal(refused.error?.code, 'reauthentication_needed')
  const t1 = Date.now() - 1000
  assert.equal((await c.auth.reauthenticate()).error, null)
  const nonceMail = await mailTo(email, /is your verification code$/, { after: t1 })
  const bad = await c.auth.updateUser({ password: 'new-password-1', nonce: '000000' })
  assert.equal(bad.error?.code, 'reauthentication_not_valid')
  const ok = await c.auth.updateUser({ password: 'new-password-1', nonce: codeOf(nonceMail) })
  assert.equal(ok.error, null)
  await mailTo(email, /^Your password was changed$/, { after: t1 })
  assert.equal(
    (await client(gw).auth.signInWithPassword({ email, password: 'new-password-1' })).error,
    null,
  )
})

test('an e-mail change is confirmed from both addresses', async () => {
  const { c, email } = await confirmedUser()
  const next = uniqueEmail('moved')
  const t0 = Date.now() - 1000
  const { data, error } = await c.auth.updateUser({ email: next })
  assert.equal(error, null)
  assert.equal(data.user.email, email)
  assert.equal(data.user.new_email, next)
  const toNew = await mailTo(next, /^Confirm your new email address$/, { after: t0 })
  const toOld = await mailTo(email, /^Confirm your new email address$/, { after: t0 })
  assert.match(toOld.Text, new RegExp(next.replace(/[.+]/g, '\\$&')))
  const first = await c.auth.verifyOtp({ token_hash: hashOf(toOld), type: 'email_change' })
  assert.equal(first.error, null)
  assert.equal(first.data.session, null)
  const second = await c.auth.verifyOtp({ token_hash: hashOf(toNew), type: 'email_change' })
  assert.equal(second.error, null)
  assert.equal(second.data.user.email, next)
})

test('PKCE: the link carries a code the same client exchanges for the session', async () => {
  const { email } = await confirmedUser()
  const store = new Map()
  const { createClient } = await import('@supabase/supabase-js')
  const WebSocket = (await import('ws')).default
  const pkce = createClient(gw.url, gw.anonKey, {
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
  const t0 = Date.now() - 1000
  assert.equal(
    (
      await pkce.auth.signInWithOtp({
        email,
        options: { emailRedirectTo: 'http://localhost:5173/cb' },
      })
    ).error,
    null,
  )
  const link = linkOf(await mailTo(email, /^Your sign-in link$/, { after: t0 }))
  assert.match(link, /token=pkce_/)
  const res = await fetch(link, { redirect: 'manual' })
  const code = new URL(res.headers.get('location')).searchParams.get('code')
  assert.ok(code)
  const { data, error } = await pkce.auth.exchangeCodeForSession(code)
  assert.equal(error, null)
  assert.equal(data.user.email, email)
  const reuse = await pkce.auth.exchangeCodeForSession(code)
  assert.ok(reuse.error)
})

test('anonymous users get a session and become permanent by confirming an address', async () => {
  const c = client(gw)
  const { data, error } = await c.auth.signInAnonymously({ options: { data: { theme: 'dark' } } })
  assert.equal(error, null)
  assert.equal(data.user.is_anonymous, true)
  const claims = JSON.parse(Buffer.from(data.session.access_token.split('.')[1], 'base64url'))
  assert.equal(claims.is_anonymous, true)
  assert.equal(claims.amr[0].method, 'anonymous')
  const email = uniqueEmail('anon')
  const t0 = Date.now() - 1000
  assert.equal((await c.auth.updateUser({ email })).error, null)
  const mail = await mailTo(email, /^Confirm your new email address$/, { after: t0 })
  const done = await c.auth.verifyOtp({ token_hash: hashOf(mail), type: 'email_change' })
  assert.equal(done.error, null)
  assert.equal(done.data.user.email, email)
  assert.equal(done.data.user.is_anonymous, false)
})

test('TOTP: enroll, challenge and verify reach aal2; unenroll then needs aal2', async () => {
  const { c } = await confirmedUser()
  const { data: enrolled, error } = await c.auth.mfa.enroll({
    factorType: 'totp',
    friendlyName: 'phone app',
  })
  assert.equal(error, null)
  assert.match(enrolled.totp.qr_code, /^data:image\/svg\+xml;utf-8,<\?xml|<svg/)
  assert.match(enrolled.totp.uri, /^otpauth:\/\/totp\//)
  const wrong = await c.auth.mfa.challengeAndVerify({ factorId: enrolled.id, code: '000000' })
  assert.equal(wrong.error?.code, 'mfa_verification_failed')
  const { error: verifyError } = await c.auth.mfa.challengeAndVerify({
    factorId: enrolled.id,
    code: totp(enrolled.totp.secret),
  })
  assert.equal(verifyError, null)
  const { data: aal } = await c.auth.mfa.getAuthenticatorAssuranceLevel()
  assert.equal(aal.currentLevel, 'aal2')
  assert.equal(aal.nextLevel, 'aal2')
  const { data: factors } = await c.auth.mfa.listFactors()
  assert.equal(factors.totp.length, 1)
  assert.equal(factors.totp[0].status, 'verified')
  assert.equal((await c.auth.mfa.unenroll({ factorId: enrolled.id })).error, null)
})

test("tokens are signed with the signing key, published in the JWKS, with the hook's claim", async () => {
  const { c, user, session } = await confirmedUser()
  const header = JSON.parse(Buffer.from(session.access_token.split('.')[0], 'base64url'))
  assert.equal(header.alg, 'ES256')
  assert.equal(header.kid, 'auth-flows-test-key')
  const jwks = await (await fetch(`${gw.url}/auth/v1/.well-known/jwks.json`)).json()
  assert.equal(jwks.keys[0].kid, 'auth-flows-test-key')
  assert.equal(jwks.keys[0].d, undefined)
  const { data: claims, error } = await c.auth.getClaims()
  assert.equal(error, null)
  assert.equal(claims.claims.sub, user.id)
  assert.equal(claims.claims.plan, 'free')
  psql(`insert into public.plans values ('${user.id}', 'gold')`)
  const { data: refreshed } = await c.auth.refreshSession()
  const payload = JSON.parse(Buffer.from(refreshed.session.access_token.split('.')[1], 'base64url'))
  assert.equal(payload.plan, 'gold')
  // REST accepts the ES256 token (and runs as authenticated).
  const { data: rows, error: restError } = await c
    .from('plans')
    .select('plan')
    .eq('user_id', user.id)
  assert.equal(restError, null)
  assert.deepEqual(rows, [{ plan: 'gold' }])
  const forged = `${session.access_token.slice(0, -3)}AAA`
  const { error: forgedError } = await client(gw, forged).from('plans').select('plan')
  assert.equal(forgedError?.code, 'PGRST301')
})

test('invitations use the project template; generated links carry a usable code', async () => {
  const admin = client(gw, gw.serviceKey)
  const email = uniqueEmail('invited')
  const t0 = Date.now() - 1000
  const { data, error } = await admin.auth.admin.inviteUserByEmail(email, { data: { name: 'Ivy' } })
  assert.equal(error, null)
  assert.ok(data.user.invited_at)
  const mail = await mailTo(email, /^Join us at http:\/\/127\.0\.0\.1:3000$/, { after: t0 })
  assert.match(mail.HTML, /Hello Ivy!/)
  const accepted = await client(gw).auth.verifyOtp({
    email,
    token: mail.Text.match(/enter (\d{6})/)[1],
    type: 'invite',
  })
  assert.equal(accepted.error, null)
  const { data: link, error: linkError } = await admin.auth.admin.generateLink({
    type: 'magiclink',
    email,
  })
  assert.equal(linkError, null)
  assert.match(link.properties.action_link, /type=magiclink/)
  const signedIn = await client(gw).auth.verifyOtp({
    email,
    token: link.properties.email_otp,
    type: 'magiclink',
  })
  assert.equal(signedIn.error, null)
  // An e-mail change link names the side it confirms, as GoTrue's answer does.
  for (const type of ['email_change_current', 'email_change_new']) {
    const change = await admin.auth.admin.generateLink({
      type,
      email,
      newEmail: uniqueEmail('moved'),
    })
    assert.equal(change.error, null)
    assert.equal(change.data.properties.verification_type, type)
    assert.match(change.data.properties.action_link, /type=email_change/)
  }
})

test('identities: the last one cannot be unlinked', async () => {
  const { c } = await confirmedUser()
  const { data } = await c.auth.getUserIdentities()
  assert.equal(data.identities.length, 1)
  const { error } = await c.auth.unlinkIdentity(data.identities[0])
  assert.equal(error?.code, 'single_identity_not_deletable')
})

test('providers that are off answer as GoTrue does', async () => {
  const c = client(gw)
  const idToken = await c.auth.signInWithIdToken({ provider: 'google', token: 'x.y.z' })
  assert.equal(
    idToken.error?.message,
    'Provider (issuer "https://accounts.google.com") is not enabled',
  )
  const sso = await c.auth.signInWithSSO({ domain: 'example.com' })
  assert.equal(sso.error?.message, 'SAML 2.0 is disabled')
  const phone = await c.auth.signUp({ phone: '+15555550100', password: 'phone-pass-1' })
  assert.equal(phone.error?.message, 'Phone signups are disabled')
  const authorize = await fetch(`${gw.url}/auth/v1/authorize?provider=gitlab`, {
    headers: { apikey: gw.anonKey },
  })
  assert.equal(authorize.status, 400)
  assert.match((await authorize.json()).msg, /Unsupported provider: provider is not enabled/)
})

test('the catcher shows mail on its page and through the Inbucket mailbox API', async () => {
  const { email } = await confirmedUser()
  const page = await (
    await fetch(`${gw.status.MAILPIT_URL}/?query=${encodeURIComponent(`to:${email}`)}`)
  ).text()
  assert.match(page, /Confirm your email address/)
  const box = await (
    await fetch(`${gw.status.MAILPIT_URL}/api/v1/mailbox/${email.split('@')[0]}`)
  ).json()
  assert.equal(box[0].subject, 'Confirm your email address')
  const one = await (
    await fetch(`${gw.status.MAILPIT_URL}/api/v1/mailbox/${email.split('@')[0]}/${box[0].id}`)
  ).json()
  assert.match(one.body.html, /verify\?token=/)
})
