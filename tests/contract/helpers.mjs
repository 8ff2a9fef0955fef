import { createClient } from '@supabase/supabase-js'
import WebSocket from 'ws'
import { execFileSync } from 'node:child_process'

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
