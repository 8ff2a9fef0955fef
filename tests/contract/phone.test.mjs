// Phone numbers through the real supabase-js: sign-up confirmed by a texted code, sign-in with
// a password or a code, a number's change confirmed on the new number, codes sent again, and
// GoTrue's answers to a wrong or stale code, a number that is not E.164, an unconfirmed number
// and a second sign-up. The codes are read from the SMS catcher's API, as a developer reads
// them on its page (it stands in for a provider enabled without its secret, in local
// development). Project: tests/fixtures/phone; and ones with each provider, their texts sent to
// stand-ins for the providers' APIs, and ones without a provider, as under the CLI.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { startGateway, repoRoot } from '../support/gateway.mjs'
import { client, projectWith, sendJson, standIn } from './helpers.mjs'

let gw
before(async () => {
  gw = await startGateway({ workdir: join(repoRoot, 'tests/fixtures/phone') })
})
after(async () => gw?.stop())

let n = 0
/** A number no other test uses: +1 555 2xx xxxx. */
const newNumber = () => `1555${String(2000000 + process.pid * 100 + n++).slice(-7)}`

/** The code of the newest text to `number` sent after `after`, from the catcher's API. */
async function codeFor(number, after = 0) {
  const end = Date.now() + 5000
  while (Date.now() < end) {
    const texts = await (
      await fetch(`${gw.status.MAILPIT_URL}/api/v1/sms?phone=%2B${number}`)
    ).json()
    const hit = texts.find((t) => Date.parse(t.created) >= after)
    if (hit) return hit.body.match(/(\d{6})$/)[1]
    await new Promise((r) => setTimeout(r, 50))
  }
  assert.fail(`no text to ${number}`)
}

test('sign-up with a phone number, confirmed by the texted code; sign-in with password or code', async () => {
  const phone = newNumber()
  const c = client(gw)
  const t0 = Date.now() - 1000
  const up = await c.auth.signUp({ phone: `+${phone}`, password: 'phone-pass-1' })
  assert.equal(up.error, null)
  assert.equal(up.data.session, null)
  assert.equal(up.data.user.phone, phone)
  const texts = await (await fetch(`${gw.status.MAILPIT_URL}/api/v1/sms?phone=${phone}`)).json()
  assert.match(texts[0].body, /^Your Bluebell code: \d{6}$/)
  const code = await codeFor(phone, t0)

  const early = await client(gw).auth.signInWithPassword({ phone, password: 'phone-pass-1' })
  assert.equal(early.error.code, 'phone_not_confirmed')
  const wrong = await c.auth.verifyOtp({
    phone,
    token: code === '000000' ? '111111' : '000000',
    type: 'sms',
  })
  assert.equal(wrong.error.message, 'Token has expired or is invalid')
  const ok = await c.auth.verifyOtp({ phone, token: code, type: 'sms' })
  assert.equal(ok.error, null)
  assert.equal(ok.data.user.phone, phone)
  assert.ok(ok.data.user.phone_confirmed_at)
  assert.equal(ok.data.user.identities[0].provider, 'phone')
  assert.equal(
    (await c.auth.verifyOtp({ phone, token: code, type: 'sms' })).error.message,
    'Token has expired or is invalid',
    'a code works once',
  )

  const byPassword = await client(gw).auth.signInWithPassword({ phone, password: 'phone-pass-1' })
  assert.equal(byPassword.error, null)
  assert.equal(byPassword.data.user.id, ok.data.user.id)
  const again = await client(gw).auth.signUp({ phone, password: 'phone-pass-2' })
  assert.equal(again.error.code, 'user_already_exists')

  await new Promise((r) => setTimeout(r, 3100)) // [auth.sms] max_frequency (3 s: wide enough for a loaded machine)
  const t1 = Date.now() - 100
  const otp = await client(gw).auth.signInWithOtp({ phone })
  assert.equal(otp.error, null)
  assert.ok(otp.data.messageId)
  const otpCode = await codeFor(phone, t1)
  const signedIn = await client(gw).auth.verifyOtp({ phone, token: otpCode, type: 'sms' })
  assert.equal(signedIn.data.user.id, ok.data.user.id)
})

test('a test number gets no text: its configured code signs it in', async () => {
  const c = client(gw)
  const sent = await c.auth.signInWithOtp({ phone: '+15555550199' })
  assert.equal(sent.error, null)
  assert.equal(sent.data.messageId, 'test-otp')
  const texts = await (await fetch(`${gw.status.MAILPIT_URL}/api/v1/sms?phone=15555550199`)).json()
  assert.deepEqual(texts, [])
  const { data, error } = await c.auth.verifyOtp({
    phone: '15555550199',
    token: '424242',
    type: 'sms',
  })
  assert.equal(error, null)
  assert.equal(data.user.phone, '15555550199')
})

test('a number changes once the new number confirms it; codes are sent again, not too often', async () => {
  const [first, second] = [newNumber(), newNumber()]
  const c = client(gw)
  await c.auth.signUp({ phone: first, password: 'phone-pass-1' })
  await c.auth.verifyOtp({ phone: first, token: await codeFor(first), type: 'sms' })
  const t0 = Date.now() - 1000
  const asked = await c.auth.updateUser({ phone: `+${second}` })
  assert.equal(asked.error, null)
  assert.equal(asked.data.user.phone, first)
  assert.equal(asked.data.user.new_phone, second)
  const code = await codeFor(second, t0)
  const soon = await c.auth.resend({ type: 'phone_change', phone: second })
  assert.equal(soon.error.code, 'over_sms_send_rate_limit')
  await new Promise((r) => setTimeout(r, 3100))
  const t1 = Date.now() - 100
  assert.equal((await c.auth.resend({ type: 'phone_change', phone: second })).error, null)
  const resent = await codeFor(second, t1)
  if (code !== resent) {
    const stale = await c.auth.verifyOtp({ phone: second, token: code, type: 'phone_change' })
    assert.equal(
      stale.error.message,
      'Token has expired or is invalid',
      'the first code is replaced',
    )
  }
  const changed = await c.auth.verifyOtp({ phone: second, token: resent, type: 'phone_change' })
  assert.equal(changed.error, null)
  assert.equal(changed.data.user.phone, second)
  assert.equal(changed.data.user.new_phone, undefined)
})

test('a phone factor: its code is texted on each challenge and raises the session to aal2', async () => {
  const phone = newNumber()
  const c = client(gw)
  await c.auth.signUp({ phone, password: 'phone-pass-1' })
  await c.auth.verifyOtp({ phone, token: await codeFor(phone), type: 'sms' })
  const second = newNumber()
  const enrolled = await c.auth.mfa.enroll({
    factorType: 'phone',
    phone: `+${second}`,
    friendlyName: 'Shop phone',
  })
  assert.equal(enrolled.error, null)
  assert.equal(enrolled.data.phone, second)
  const t0 = Date.now() - 100
  const challenge = await c.auth.mfa.challenge({ factorId: enrolled.data.id })
  assert.equal(challenge.error, null)
  assert.equal(challenge.data.type, 'phone')
  const texts = await (await fetch(`${gw.status.MAILPIT_URL}/api/v1/sms?phone=${second}`)).json()
  assert.match(texts[0].body, /^Your Bluebell sign-in code: \d{6}$/)
  const code = await codeFor(second, t0)
  const soon = await c.auth.mfa.challenge({ factorId: enrolled.data.id })
  assert.equal(soon.error.code, 'over_sms_send_rate_limit')
  const wrong = await c.auth.mfa.verify({
    factorId: enrolled.data.id,
    challengeId: challenge.data.id,
    code: code === '000000' ? '111111' : '000000',
  })
  assert.equal(wrong.error.message, 'Invalid OTP code entered')
  // A challenge is answered once: the wrong answer used it up.
  await new Promise((r) => setTimeout(r, 3100))
  const t1 = Date.now() - 100
  const again = await c.auth.mfa.challenge({ factorId: enrolled.data.id })
  const ok = await c.auth.mfa.verify({
    factorId: enrolled.data.id,
    challengeId: again.data.id,
    code: await codeFor(second, t1),
  })
  assert.equal(ok.error, null)
  const aal = await c.auth.mfa.getAuthenticatorAssuranceLevel()
  assert.equal(aal.data.currentLevel, 'aal2')
  const amr = JSON.parse(Buffer.from(ok.data.access_token.split('.')[1], 'base64url')).amr.map(
    (a) => a.method,
  )
  assert.ok(amr.includes('mfa/phone'), amr.join())
})

test('WhatsApp as the channel: the code is caught as a WhatsApp message; channels GoTrue does not know are refused', async () => {
  const phone = newNumber()
  const t0 = Date.now() - 1000
  const sent = await client(gw).auth.signInWithOtp({ phone, options: { channel: 'whatsapp' } })
  assert.equal(sent.error, null)
  const [text] = await (await fetch(`${gw.status.MAILPIT_URL}/api/v1/sms?phone=${phone}`)).json()
  assert.equal(text.channel, 'whatsapp')
  const page = await (await fetch(gw.status.MAILPIT_URL)).text()
  assert.match(page, new RegExp(`<td>\\+${phone}</td><td>WhatsApp</td>`))
  const ok = await client(gw).auth.verifyOtp({
    phone,
    token: await codeFor(phone, t0),
    type: 'sms',
  })
  assert.equal(ok.error, null)

  const post = async (path, body) => {
    const r = await fetch(`${gw.url}/auth/v1/${path}`, {
      method: 'POST',
      headers: { apikey: gw.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    return [r.status, (await r.json()).msg]
  }
  const invalid =
    "Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider."
  assert.deepEqual(await post('otp', { phone: newNumber(), channel: 'fax' }), [400, invalid])
  assert.deepEqual(
    await post('signup', { phone: newNumber(), password: 'phone-pass-1', channel: 'fax' }),
    [400, invalid],
  )
  assert.deepEqual(await post('otp', { email: 'ann@example.com', channel: 'sms' }), [
    400,
    'Channel should only be specified with Phone OTP',
  ])
})

test('bad numbers and switched-off flows answer as GoTrue does', async () => {
  const c = client(gw)
  for (const phone of ['phone', '+0123', '12345678901234567']) {
    const { error } = await c.auth.signUp({ phone, password: 'phone-pass-1' })
    assert.equal(error.message, 'Invalid phone number format (E.164 required)', phone)
  }
  const admin = client(gw, gw.serviceKey).auth.admin
  const phone = newNumber()
  const made = await admin.createUser({ phone, password: 'phone-pass-1', phone_confirm: true })
  assert.equal(made.error, null)
  assert.ok(made.data.user.phone_confirmed_at)
  assert.equal((await admin.createUser({ phone })).error.code, 'phone_exists')
  assert.equal(
    (await client(gw).auth.signInWithPassword({ phone, password: 'phone-pass-1' })).error,
    null,
  )
  const none = await client(gw).auth.signInWithOtp({
    phone: newNumber(),
    options: { shouldCreateUser: false },
  })
  assert.equal(none.error.message, 'Signups not allowed for otp')
  const settings = await (
    await fetch(`${gw.url}/auth/v1/settings`, { headers: { apikey: gw.anonKey } })
  ).json()
  assert.equal(settings.external.phone, true)
  assert.equal(settings.phone_autoconfirm, false)
})

test('with [auth.sms.twilio], texts go through the Messages API; a refused text undoes the sign-up', async () => {
  let refuse = false
  const twilio = await standIn((_r, res) => {
    const n = twilio.got.length
    if (refuse) sendJson(res, 400, { code: 21211, message: 'Invalid To number' })
    else sendJson(res, 201, { sid: `SM${n}` })
  })
  const sent = twilio.got
  const project = await projectWith('twilio', [
    '[auth.sms]',
    'enable_signup = true',
    'enable_confirmations = true',
    '[auth.sms.twilio]',
    'enabled = true',
    'account_sid = "AC123"',
    'message_service_sid = "MG456"',
    'auth_token = "env(TWILIO_TEST_TOKEN)"',
  ])
  const viaTwilio = await startGateway({
    workdir: project.dir,
    env: { SUPAGATE_SMS_API_URL: twilio.url, TWILIO_TEST_TOKEN: 'tok' },
  })
  try {
    const phone = newNumber()
    const up = await client(viaTwilio).auth.signUp({ phone, password: 'phone-pass-1' })
    assert.equal(up.error, null)
    assert.equal(sent.length, 1)
    assert.equal(sent[0].url, '/2010-04-01/Accounts/AC123/Messages.json')
    assert.equal(sent[0].auth, `Basic ${Buffer.from('AC123:tok').toString('base64')}`)
    assert.equal(sent[0].form.get('To'), `+${phone}`)
    assert.equal(sent[0].form.get('From'), 'MG456')
    const code = sent[0].form.get('Body').match(/(\d{6})$/)[1]
    assert.equal(
      (await client(viaTwilio).auth.verifyOtp({ phone, token: code, type: 'sms' })).error,
      null,
    )

    // On WhatsApp, Twilio gets both addresses prefixed (a messaging service SID stays as it is).
    const onWhatsapp = newNumber()
    assert.equal(
      (
        await client(viaTwilio).auth.signInWithOtp({
          phone: onWhatsapp,
          options: { channel: 'whatsapp' },
        })
      ).error,
      null,
    )
    const w = sent.at(-1)
    assert.deepEqual(
      [w.form.get('To'), w.form.get('From'), w.form.get('Channel')],
      [`whatsapp:+${onWhatsapp}`, 'MG456', 'whatsapp'],
    )
    assert.match(w.form.get('Body'), /^Your code is \d{6}$/)

    refuse = true
    const other = newNumber()
    const failed = await client(viaTwilio).auth.signUp({ phone: other, password: 'phone-pass-1' })
    assert.equal(failed.error.status, 500)
    assert.match(failed.error.message, /^Error sending sms OTP: 400 Invalid To number/)
    const ghost = await client(viaTwilio).auth.signInWithPassword({
      phone: other,
      password: 'phone-pass-1',
    })
    assert.equal(ghost.error.code, 'invalid_credentials', 'the failed sign-up left no user behind')
    refuse = false
    assert.equal(
      (await client(viaTwilio).auth.signUp({ phone: other, password: 'phone-pass-1' })).error,
      null,
    )
    const caught = await (await fetch(`${viaTwilio.status.MAILPIT_URL}/api/v1/sms`)).json()
    assert.deepEqual(caught, [], 'nothing is caught when a provider sends')
  } finally {
    await viaTwilio.stop()
    twilio.close()
    project.remove()
  }
})

test('without a provider, or without its secret outside local development, texting a code fails as GoTrue does; test numbers still sign in', async () => {
  // [case, config.toml lines, environment]
  const cases = [
    ['no provider', [], {}],
    [
      'no secret, own JWT secret',
      [
        '[auth.sms.twilio]',
        'enabled = true',
        'account_sid = "AC1"',
        'message_service_sid = "MG1"',
        'auth_token = "env(UNSET_TWILIO_TOKEN)"',
      ],
      { JWT_SECRET: 'a-project-secret-of-at-least-32-characters' },
    ],
  ]
  for (const [name, lines, env] of cases) {
    const project = await projectWith('no-sms', [
      '[auth.sms]',
      'enable_signup = true',
      '[auth.sms.test_otp]',
      '15555550177 = "135790"',
      ...lines,
    ])
    const bare = await startGateway({ workdir: project.dir, env })
    try {
      const number = newNumber()
      const sent = await client(bare).auth.signInWithOtp({ phone: number })
      assert.equal(sent.error?.status, 500, name)
      assert.equal(sent.error.message, 'Unable to get SMS provider', name)
      const raw = await fetch(`${bare.url}/auth/v1/otp`, {
        method: 'POST',
        headers: { apikey: bare.anonKey, 'content-type': 'application/json' },
        body: JSON.stringify({ phone: newNumber() }),
      })
      assert.deepEqual(
        [raw.status, await raw.json()],
        [500, { code: 500, error_code: 'unexpected_failure', msg: 'Unable to get SMS provider' }],
        name,
      )
      const ghost = await client(bare).auth.signInWithOtp({
        phone: number,
        options: { shouldCreateUser: false },
      })
      assert.equal(
        ghost.error.message,
        'Signups not allowed for otp',
        `${name}: the failed send left no user behind`,
      )
      assert.equal(
        (await client(bare).auth.signInWithOtp({ phone: '15555550177' })).error,
        null,
        name,
      )
      const ok = await client(bare).auth.verifyOtp({
        phone: '15555550177',
        token: '135790',
        type: 'sms',
      })
      assert.equal(ok.error, null, name)
      assert.deepEqual(
        await (await fetch(`${bare.status.MAILPIT_URL}/api/v1/sms`)).json(),
        [],
        name,
      )
    } finally {
      await bare.stop()
      project.remove()
    }
  }
})

test('MessageBird, Textlocal and Vonage get the text as GoTrue sends it', async () => {
  // [provider, config.toml lines, path, what the request carries, the answer, a refusal and its message]
  const providers = [
    [
      'messagebird',
      ['originator = "Bloom"', 'access_key = "mb-key"'],
      '/messages',
      (r, phone) =>
        r.auth === 'AccessKey mb-key' &&
        r.form.get('originator') === 'Bloom' &&
        r.form.get('recipients') === phone &&
        r.form.get('type') === 'sms' &&
        r.form.get('datacoding') === 'unicode'
          ? r.form.get('body')
          : null,
      [201, { id: 'mb1', recipients: { totalSentCount: 1 } }],
      [401, { errors: [{ code: 2, description: 'Request not allowed (incorrect access_key)' }] }],
      /incorrect access_key/,
    ],
    [
      'textlocal',
      ['sender = "BLOOM"', 'api_key = "tl-key"'],
      '/send',
      (r, phone) =>
        r.form.get('apikey') === 'tl-key' &&
        r.form.get('sender') === 'BLOOM' &&
        r.form.get('numbers') === phone
          ? r.form.get('message')
          : null,
      [200, { status: 'success', messages: [{ id: 'tl1' }] }],
      [200, { status: 'failure', errors: [{ code: 3, message: 'Invalid login details' }] }],
      /textlocal error: Internal Error/,
    ],
    [
      'vonage',
      ['from = "Bloom"', 'api_key = "vk"', 'api_secret = "vs"'],
      '/sms/json',
      (r, phone) =>
        r.form.get('api_key') === 'vk' &&
        r.form.get('api_secret') === 'vs' &&
        r.form.get('from') === 'Bloom' &&
        r.form.get('to') === phone
          ? r.form.get('text')
          : null,
      [200, { messages: [{ status: '0', 'message-id': 'v1' }] }],
      [200, { messages: [{ status: '4', 'error-text': 'Bad Credentials', 'message-id': '' }] }],
      /vonage error: Bad Credentials \(status: 4\)/,
    ],
  ]
  for (const [name, lines, path, read, answer, refusal, refusalMessage] of providers) {
    let refuse = false
    const stand = await standIn((_, res) => sendJson(res, ...(refuse ? refusal : answer)))
    const got = stand.got
    const project = await projectWith(name, [
      '[auth.sms]',
      'enable_signup = true',
      'enable_confirmations = true',
      `[auth.sms.${name}]`,
      'enabled = true',
      ...lines,
    ])
    const gw = await startGateway({
      workdir: project.dir,
      env: { SUPAGATE_SMS_API_URL: stand.url },
    })
    try {
      const phone = newNumber()
      assert.equal(
        (await client(gw).auth.signUp({ phone, password: 'phone-pass-1' })).error,
        null,
        name,
      )
      assert.equal(got.length, 1, name)
      assert.equal(got[0].url, path, name)
      const text = read(got[0], phone)
      assert.ok(text, `${name}: ${JSON.stringify([...got[0].form])}`)
      const code = text.match(/(\d{6})$/)[1]
      assert.equal(
        (await client(gw).auth.verifyOtp({ phone, token: code, type: 'sms' })).error,
        null,
        name,
      )
      const whatsapp = await client(gw).auth.signInWithOtp({
        phone: newNumber(),
        options: { channel: 'whatsapp' },
      })
      assert.match(
        whatsapp.error?.message ?? '',
        /^Invalid channel/,
        `${name}: WhatsApp is Twilio's only`,
      )
      refuse = true
      const failed = await client(gw).auth.signUp({ phone: newNumber(), password: 'phone-pass-1' })
      assert.equal(failed.error.status, 500, name)
      assert.match(failed.error.message, refusalMessage, name)
    } finally {
      await gw.stop()
      stand.close()
      project.remove()
    }
  }
})

test('with [auth.sms.twilio_verify], Twilio Verify texts its own code and checks it', async () => {
  const verify = await standIn((r, res) => {
    const approved = r.form.get('Code') === '424242'
    sendJson(
      res,
      201,
      r.path.endsWith('/VerificationCheck')
        ? { sid: 'VE1', status: approved ? 'approved' : 'pending', valid: approved }
        : { sid: 'VE1', status: 'pending', channel: r.form.get('Channel') },
    )
  })
  const calls = verify.got
  const project = await projectWith('twilio-verify', [
    '[auth.sms]',
    'enable_signup = true',
    'enable_confirmations = true',
    '[auth.sms.twilio_verify]',
    'enabled = true',
    'account_sid = "AC9"',
    'message_service_sid = "VA1"',
    'auth_token = "vt"',
  ])
  const gw = await startGateway({ workdir: project.dir, env: { SUPAGATE_SMS_API_URL: verify.url } })
  try {
    const phone = newNumber()
    assert.equal((await client(gw).auth.signUp({ phone, password: 'phone-pass-1' })).error, null)
    assert.equal(calls.length, 1)
    assert.equal(calls[0].url, '/v2/Services/VA1/Verifications')
    assert.equal(calls[0].auth, `Basic ${Buffer.from('AC9:vt').toString('base64')}`)
    assert.equal(calls[0].form.get('To'), `+${phone}`)
    assert.equal(calls[0].form.get('Channel'), 'sms')
    const wrong = await client(gw).auth.verifyOtp({ phone, token: '111111', type: 'sms' })
    assert.equal(wrong.error.code, 'otp_expired')
    assert.equal(calls[1].url, '/v2/Services/VA1/VerificationCheck')
    assert.equal(calls[1].form.get('Code'), '111111')
    const right = await client(gw).auth.verifyOtp({ phone, token: '424242', type: 'sms' })
    assert.equal(right.error, null)
    assert.ok(right.data.session)
    assert.equal(
      (
        await client(gw).auth.signInWithOtp({
          phone: newNumber(),
          options: { channel: 'whatsapp' },
        })
      ).error,
      null,
    )
    assert.equal(
      calls.at(-1).form.get('Channel'),
      'whatsapp',
      'Verify is told the channel, with no prefix',
    )
    assert.deepEqual(await (await fetch(`${gw.status.MAILPIT_URL}/api/v1/sms`)).json(), [])
  } finally {
    await gw.stop()
    verify.close()
    project.remove()
  }
})

test('with [auth.hook.send_sms], the hook gets the code and nothing is sent', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'supagate-sms-hook-'))
  mkdirSync(join(dir, 'supabase/migrations'), { recursive: true })
  writeFileSync(
    join(dir, 'supabase/config.toml'),
    [
      'project_id = "sms-hook"',
      '[auth.sms]',
      'enable_signup = true',
      'enable_confirmations = true',
      '[auth.hook.send_sms]',
      'enabled = true',
      'uri = "pg-functions://postgres/public/send_sms"',
      '',
    ].join('\n'),
  )
  writeFileSync(
    join(dir, 'supabase/migrations/20250101000000_hook.sql'),
    `
    create table public.texts (phone text, otp text);
    create function public.send_sms(event jsonb) returns jsonb language sql as $$
      insert into public.texts values (event->'user'->>'phone', event->'sms'->>'otp');
      select '{}'::jsonb;
    $$;
    grant usage on schema public to supabase_auth_admin;
    grant insert on public.texts to supabase_auth_admin;
    grant execute on function public.send_sms to supabase_auth_admin;
    revoke execute on function public.send_sms from authenticated, anon, public;
  `,
  )
  const hooked = await startGateway({ workdir: dir })
  try {
    const phone = newNumber()
    assert.equal(
      (await client(hooked).auth.signUp({ phone, password: 'phone-pass-1' })).error,
      null,
    )
    const rows = await (
      await fetch(`${hooked.url}/rest/v1/texts?select=phone,otp`, {
        headers: { apikey: hooked.serviceKey, authorization: `Bearer ${hooked.serviceKey}` },
      })
    ).json()
    assert.equal(rows.length, 1)
    assert.equal(rows[0].phone, phone)
    assert.equal(
      (await client(hooked).auth.verifyOtp({ phone, token: rows[0].otp, type: 'sms' })).error,
      null,
    )
    assert.deepEqual(await (await fetch(`${hooked.status.MAILPIT_URL}/api/v1/sms`)).json(), [])
  } finally {
    await hooked.stop()
    rmSync(dir, { recursive: true, force: true })
  }
})
