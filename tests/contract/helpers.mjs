import { createClient } from '@supabase/supabase-js'
import WebSocket from 'ws'
import { execFileSync } from 'node:child_process'
import { createHmac } from 'node:crypto'

/** A token with these claims, signed with the Supabase CLI's demo JWT secret. */
export function demoToken(claims) {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`
  const sig = createHmac('sha256', 'super-secret-jwt-token-with-at-least-32-characters-long').update(body).digest('base64url')
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
  execFileSync('psql', [gw.dbUrl, '-X', '-q', '-t', '-A', '-v', 'ON_ERROR_STOP=1', '-c', sql], { encoding: 'utf8' }).trim()
