// Web3 sign-in through the real supabase-js (`signInWithWeb3`): an Ethereum wallet (EIP-1193
// `request`: eth_requestAccounts, eth_chainId, personal_sign) and a Solana wallet (`publicKey`,
// `signMessage`) played by test keys (secp256k1 with Keccak-256 from @noble, ed25519 from
// node:crypto); the `web3` identity `web3:<chain>:<address>` and its one user across sign-ins;
// the before-user-created hook asked about a wallet's new user; and GoTrue's answers to a wrong
// signature, a message for another app, a stale message, a bad message, an unknown chain and a
// chain that is off. Projects: `[auth.web3.*]` switched on (both
// chains; Solana only) with the app on http://localhost:3000.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createPrivateKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { startGateway } from '../support/gateway.mjs'
import { client, projectWith } from './helpers.mjs'

const APP = 'http://localhost:3000/login'
/** The before-user-created hook refuses a wallet's new user that signed a statement it dislikes. */
const HOOK_SQL = `
create function public.before_user_created(event jsonb) returns jsonb language plpgsql as $$
begin
  if event -> 'user' -> 'app_metadata' ->> 'provider' = 'web3'
     and event -> 'user' -> 'user_metadata' -> 'custom_claims' ->> 'statement' = 'let me in uninvited' then
    return jsonb_build_object('error', jsonb_build_object('http_code', 403, 'message', 'Not on the guest list'));
  end if;
  return '{}';
end $$;
grant execute on function public.before_user_created to supabase_auth_admin;
`
let gw, solanaOnly, projects
before(async () => {
  const site = ['[auth]', 'site_url = "http://localhost:3000"']
  projects = [
    await projectWith('web3', [
      ...site,
      '[auth.web3.solana]',
      'enabled = true',
      '[auth.web3.ethereum]',
      'enabled = true',
      '[auth.hook.before_user_created]',
      'enabled = true',
      'uri = "pg-functions://postgres/public/before_user_created"',
    ]),
    await projectWith('web3-solana', [...site, '[auth.web3.solana]', 'enabled = true']),
  ]
  mkdirSync(join(projects[0].dir, 'supabase/migrations'))
  writeFileSync(join(projects[0].dir, 'supabase/migrations/20240101000000_hook.sql'), HOOK_SQL)
  ;[gw, solanaOnly] = await Promise.all(projects.map((p) => startGateway({ workdir: p.dir })))
})
after(async () => {
  await Promise.all([gw?.stop(), solanaOnly?.stop()])
  for (const p of projects ?? []) p.remove()
})

const hex = (bytes) => Buffer.from(bytes).toString('hex')

/** An Ethereum account of a fresh key: its address and `personal_sign` (EIP-191). */
function ethereumAccount() {
  const key = randomBytes(32)
  const address = `0x${hex(keccak_256(secp256k1.getPublicKey(key, false).slice(1)).slice(12))}`
  const personalSign = (message) => {
    const bytes = Buffer.from(message)
    const prefixed = Buffer.concat([
      Buffer.from(`\x19Ethereum Signed Message:\n${bytes.length}`),
      bytes,
    ])
    // noble's recovered format is `recovery ‖ r ‖ s`; wallets send `r ‖ s ‖ v` with v = 27 + recovery.
    const sig = secp256k1.sign(keccak_256(prefixed), key, { prehash: false, format: 'recovered' })
    return `0x${hex(sig.slice(1))}${(27 + sig[0]).toString(16)}`
  }
  const wallet = {
    request: async ({ method, params }) => {
      if (method === 'eth_requestAccounts') return [address]
      if (method === 'eth_chainId') return '0x1'
      if (method === 'personal_sign') return personalSign(Buffer.from(params[0].slice(2), 'hex'))
      throw new Error(`unexpected wallet method ${method}`)
    },
  }
  return { address, personalSign, wallet }
}

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
function base58(bytes) {
  let n = BigInt(`0x${hex(bytes)}`)
  let out = ''
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out
    n /= 58n
  }
  for (const b of bytes) {
    if (b !== 0) break
    out = `1${out}`
  }
  return out
}

/** A Solana account of a fresh ed25519 key: its base58 address and a wallet that signs. */
function solanaAccount() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const address = base58(Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url'))
  const signMessage = async (bytes) =>
    new Uint8Array(
      sign(
        null,
        Buffer.from(bytes),
        createPrivateKey(privateKey.export({ format: 'pem', type: 'pkcs8' })),
      ),
    )
  return { address, wallet: { publicKey: { toBase58: () => address }, signMessage } }
}

/** POST /token?grant_type=web3 as auth-js sends it; the status and the JSON body. */
async function web3Grant(g, body) {
  const res = await fetch(`${g.url}/auth/v1/token?grant_type=web3`, {
    method: 'POST',
    headers: { apikey: g.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() }
}

/** A SIWE message as auth-js writes it. */
const siwe = (address, { uri = APP, issuedAt = new Date(), domain = new URL(uri).host } = {}) =>
  `${domain} wants you to sign in with your Ethereum account:\n${address}\n\n\nURI: ${uri}\nVersion: 1\nChain ID: 1\nIssued At: ${issuedAt.toISOString()}`

test('an Ethereum wallet signs in with signInWithWeb3; the same address is the same user', async () => {
  const account = ethereumAccount()
  const c = client(gw)
  const { data, error } = await c.auth.signInWithWeb3({
    chain: 'ethereum',
    wallet: account.wallet,
    statement: 'I accept the terms',
    options: { url: APP },
  })
  assert.equal(error, null)
  assert.ok(data.session.access_token)
  const user = data.user
  assert.equal(user.app_metadata.provider, 'web3')
  assert.deepEqual(user.app_metadata.providers, ['web3'])
  assert.ok(!user.email)
  const [identity] = user.identities
  assert.equal(identity.provider, 'web3')
  assert.equal(identity.identity_data.sub, `web3:ethereum:${account.address}`)
  assert.deepEqual(identity.identity_data.custom_claims, {
    address: account.address,
    chain: 'ethereum',
    network: '1',
    domain: 'localhost:3000',
    statement: 'I accept the terms',
  })
  const { data: me } = await c.auth.getUser()
  assert.equal(me.user.id, user.id)

  // A message and signature made by the app itself (auth-js's message form).
  const message = siwe(account.address)
  const again = await client(gw).auth.signInWithWeb3({
    chain: 'ethereum',
    message,
    signature: account.personalSign(message),
  })
  assert.equal(again.error, null)
  assert.equal(again.data.user.id, user.id)
})

test('a Solana wallet signs in with signInWithWeb3 (signMessage)', async () => {
  const account = solanaAccount()
  const c = client(gw)
  const { data, error } = await c.auth.signInWithWeb3({
    chain: 'solana',
    wallet: account.wallet,
    statement: 'Sign in to the shop',
    options: { url: APP },
  })
  assert.equal(error, null)
  assert.ok(data.session.refresh_token)
  const [identity] = data.user.identities
  assert.equal(identity.identity_data.sub, `web3:solana:${account.address}`)
  assert.equal(identity.identity_data.custom_claims.statement, 'Sign in to the shop')
  assert.equal(identity.identity_data.custom_claims.network, '')
  const second = await client(gw).auth.signInWithWeb3({
    chain: 'solana',
    wallet: account.wallet,
    options: { url: APP },
  })
  assert.equal(second.error, null)
  assert.equal(second.data.user.id, data.user.id)
})

test("GoTrue's answers to a wrong signature, another app's message, a stale or bad message", async () => {
  const account = ethereumAccount()
  const other = ethereumAccount()
  const grant = (message, signature = account.personalSign(message)) =>
    web3Grant(gw, { chain: 'ethereum', message, signature })
  const invalid = (description) => ({
    status: 400,
    body: { error: 'invalid_grant', error_description: description },
  })

  const message = siwe(account.address)
  assert.deepEqual(
    await grant(message, other.personalSign(message)),
    invalid('Signature does not match address in message'),
  )
  assert.deepEqual(
    await grant(siwe(account.address, { uri: 'https://evil.example/' })),
    invalid(
      'Signed Ethereum message is using URI which is not allowed on this server, message was signed for another app',
    ),
  )
  assert.deepEqual(
    await grant(siwe(account.address, { uri: 'http://evil.example/' })),
    invalid('Signed Ethereum message is using URI which does not use HTTPS'),
  )
  assert.deepEqual(
    await grant(siwe(account.address, { issuedAt: new Date(Date.now() - 11 * 60_000) })),
    invalid('Ethereum message was issued too long ago'),
  )
  const bad = await grant(message.replace('Version: 1', 'Version: 2'))
  assert.equal(bad.status, 400)
  assert.equal(bad.body.error_code, 'validation_failed')
  assert.equal(bad.body.msg, 'siwe: Version value is not supported, expected 1 got "2"')
  const short = await grant(message, '0x1234')
  assert.equal(
    short.body.msg,
    'signature must be 65 bytes long, encoded as a 130 character-long hexadecimal string',
  )

  // supabase-js hands the refusal back as an AuthApiError.
  const { error } = await client(gw).auth.signInWithWeb3({
    chain: 'ethereum',
    message,
    signature: other.personalSign(message),
  })
  assert.equal(error.status, 400)
  assert.equal(error.message, 'Signature does not match address in message')
  // Solana's signature is 64 bytes of base64.
  const solana = await web3Grant(gw, { chain: 'solana', message: 'x'.repeat(64), signature: 'abc' })
  assert.equal(
    solana.body.msg,
    'signature must be 64 bytes encoded as base64 with or without padding',
  )
})

test("the before-user-created hook decides about a wallet's new user", async () => {
  const account = ethereumAccount()
  const refused = await client(gw).auth.signInWithWeb3({
    chain: 'ethereum',
    wallet: account.wallet,
    statement: 'let me in uninvited',
    options: { url: APP },
  })
  assert.equal(refused.error?.status, 403)
  assert.equal(refused.error?.message, 'Not on the guest list')
  const admitted = await client(gw).auth.signInWithWeb3({
    chain: 'ethereum',
    wallet: account.wallet,
    options: { url: APP },
  })
  assert.equal(admitted.error, null)
})

test('an unknown chain, and a chain that is off', async () => {
  const message = siwe(ethereumAccount().address)
  const unknown = await web3Grant(gw, { chain: 'bitcoin', message, signature: '0x' })
  assert.equal(unknown.status, 400)
  assert.equal(unknown.body.error_code, 'web3_unsupported_chain')
  assert.equal(unknown.body.msg, 'Unsupported chain')
  const off = await web3Grant(solanaOnly, { chain: 'ethereum', message, signature: '0x' })
  assert.equal(off.status, 422)
  assert.equal(off.body.error_code, 'web3_provider_disabled')
  assert.equal(off.body.msg, 'Ethereum Web3 provider is disabled')
  const solana = solanaAccount()
  const { data, error } = await client(solanaOnly).auth.signInWithWeb3({
    chain: 'solana',
    wallet: solana.wallet,
    options: { url: APP },
  })
  assert.equal(error, null)
  assert.equal(data.user.identities[0].identity_data.sub, `web3:solana:${solana.address}`)
})
