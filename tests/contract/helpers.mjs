import { createClient } from '@supabase/supabase-js'
import WebSocket from 'ws'
import { execFileSync } from 'node:child_process'
import { createHmac } from 'node:crypto'

/** A token with these claims, signed with the Supabase CLI's demo JWT secret. */
export function demoToken(claims) {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`
  const sig = createHmac('sha256', 'super-secret-jwt-token-with-at-least-32-characters-long')
    .update(body)
    .digest('base64url')
  return `${body}.${sig}`
}

/** A supabase-js client as the shop creates it, but with in-memory session storage. */
export function client(gw, key = gw.anonKey, { autoRefreshToken = false } = {}) {
  const store = new Map()
  return createClient(gw.url, key, {
    // Node 20 has no WebSocket; supabase-js builds a realtime client eagerly (it never connects here).
    realtime: { transport: WebSocket },
    auth: {
      persistSession: true,
      autoRefreshToken,
      storage: {
        getItem: (k) => store.get(k) ?? null,
        setItem: (k, v) => void store.set(k, v),
        removeItem: (k) => void store.delete(k),
      },
    },
  })
}

export async function signedIn(gw, email, password) {
  const c = client(gw)
  const { error } = await c.auth.signInWithPassword({ email, password })
  if (error) throw error
  return c
}

let n = 0
export const uniqueEmail = (tag) => `${tag}-${Date.now()}-${n++}@example.com`

/** Runs SQL as the database's owner (psql on the gateway's DB_URL); returns its output as text. */
export const psql = (gw, sql) =>
  execFileSync('psql', [gw.dbUrl, '-X', '-q', '-t', '-A', '-v', 'ON_ERROR_STOP=1', '-c', sql], {
    encoding: 'utf8',
  }).trim()

/**
 * A local HTTP server standing in for a provider (SMS, OAuth, OpenID): each request is recorded
 * in `got` (`url`, `path`, `query`, `auth`, `form`) and answered by `answer(request, res)`.
 */
export async function standIn(answer) {
  const { createServer } = await import('node:http')
  const got = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      const u = new URL(req.url, 'http://stand-in')
      const r = {
        url: req.url,
        path: u.pathname,
        query: u.searchParams,
        auth: req.headers.authorization,
        headers: req.headers,
        form: new URLSearchParams(body),
      }
      got.push(r)
      answer(r, res)
    })
  })
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  return { got, url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() }
}

/** An OpenID provider's signing key: `sign(claims)` makes an RS256 ID token, and
 * `serve(r, res, issuer)` answers the issuer's discovery document and key set on a stand-in
 * (true when it did). */
export async function oidcKey() {
  const { generateKeyPairSync, createSign } = await import('node:crypto')
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' }
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const sign = (claims, kid = 'k1') => {
    const head = `${b64({ alg: 'RS256', typ: 'JWT', kid })}.${b64(claims)}`
    return `${head}.${createSign('RSA-SHA256').update(head).sign(privateKey).toString('base64url')}`
  }
  const serve = (r, res, issuer) => {
    const path = new URL(issuer).pathname.replace(/\/$/, '')
    if (r.path === `${path}/.well-known/openid-configuration`)
      sendJson(res, 200, { issuer, jwks_uri: `${issuer}/keys` })
    else if (r.path === `${path}/keys`) sendJson(res, 200, { keys: [jwk] })
    else return false
    return true
  }
  return { sign, serve }
}

/** Answers `value` as JSON. */
export function sendJson(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(value))
}

/** A project folder whose supabase/config.toml is these lines; `remove()` deletes it. */
export async function projectWith(name, lines) {
  const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const dir = mkdtempSync(join(tmpdir(), `supagate-${name}-`))
  mkdirSync(join(dir, 'supabase'))
  writeFileSync(
    join(dir, 'supabase/config.toml'),
    [`project_id = "${name}"`, ...lines, ''].join('\n'),
  )
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}
