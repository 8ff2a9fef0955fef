// Test helpers for supabase-js against supagate. See index.d.ts for the API and README.md for
// an example. Settings come from the environment `supagate exec` gives a command (SUPABASE_URL,
// SUPABASE_ANON_KEY, SUPABASE_SERVICE_ROLE_KEY), or from `configure`.
import { createClient } from '@supabase/supabase-js'

const HEADER = 'x-supagate-branch'
let settings = null
let defaults = {}

/** Options every client gets (e.g. `{ realtime: { transport: WebSocket } }` on Node 20). */
export function setClientDefaults(options) {
  defaults = options ?? {}
}

export function configure({ url, anonKey, serviceKey }) {
  settings = { url: url.replace(/\/+$/, ''), anonKey, serviceKey }
}

function current() {
  if (settings) return settings
  const env = globalThis.process?.env ?? {}
  const url = env.SUPABASE_URL ?? env.API_URL
  const anonKey = env.SUPABASE_ANON_KEY ?? env.ANON_KEY
  const serviceKey = env.SUPABASE_SERVICE_ROLE_KEY ?? env.SERVICE_ROLE_KEY
  if (!url || !anonKey || !serviceKey) {
    throw new Error(
      '@supagate/testing: run the tests with `supagate exec -- <command>`, or call configure({ url, anonKey, serviceKey })',
    )
  }
  configure({ url, anonKey, serviceKey })
  return settings
}

/** A session store in memory: clients never share sessions or touch localStorage. */
function memoryStorage() {
  const m = new Map()
  return {
    getItem: (k) => m.get(k) ?? null,
    setItem: (k, v) => void m.set(k, v),
    removeItem: (k) => void m.delete(k),
  }
}

function makeClient(key, branchName, own = {}) {
  const { url } = current()
  const options = {
    ...defaults,
    ...own,
    realtime: { ...(defaults.realtime ?? {}), ...(own.realtime ?? {}) },
  }
  const headers = {
    ...(options.global?.headers ?? {}),
    ...(branchName ? { [HEADER]: branchName } : {}),
  }
  const realtimeParams = {
    ...(options.realtime?.params ?? {}),
    ...(branchName ? { [HEADER]: branchName } : {}),
  }
  return createClient(url, key, {
    ...options,
    global: { ...(options.global ?? {}), headers },
    realtime: { ...(options.realtime ?? {}), params: realtimeParams },
    auth: {
      persistSession: true,
      autoRefreshToken: false,
      storage: memoryStorage(),
      ...(options.auth ?? {}),
    },
  })
}

async function workbench(method, path, { body, branchName, query } = {}) {
  const { url, serviceKey } = current()
  const qs = query ? `?${new URLSearchParams(query)}` : ''
  const res = await fetch(`${url}/_supagate/v1${path}${qs}`, {
    method,
    headers: {
      apikey: serviceKey,
      authorization: `Bearer ${serviceKey}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...(branchName ? { [HEADER]: branchName } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  })
  const text = await res.text()
  const data = text ? JSON.parse(text) : null
  if (!res.ok) throw new Error(`supagate ${method} ${path}: ${res.status} ${data?.message ?? text}`)
  return data
}

function scope(branchName) {
  return {
    name: branchName,
    headers: branchName ? { [HEADER]: branchName } : {},
    client: (key, options) => makeClient(key ?? current().anonKey, branchName, options),
    asAnon: (options) => makeClient(current().anonKey, branchName, options),
    asService: (options) => makeClient(current().serviceKey, branchName, options),
    async asUser(email, { password = 'test-password-123', metadata, options } = {}) {
      const admin = makeClient(current().serviceKey, branchName)
      const made = await admin.auth.admin.createUser({
        email,
        password,
        email_confirm: true,
        user_metadata: metadata,
      })
      if (made.error && made.error.code !== 'email_exists') throw made.error
      const c = makeClient(current().anonKey, branchName, options)
      const { error } = await c.auth.signInWithPassword({ email, password })
      if (error) throw error
      return c
    },
    codes: async (to) =>
      (await workbench('GET', '/codes', { branchName, query: to ? { to } : undefined })).codes,
    mail: async (to) =>
      (await workbench('GET', '/mail', { branchName, query: to ? { to } : undefined })).messages,
    deleteUsers: async () => (await workbench('DELETE', '/users', { branchName })).deleted,
    truncate: (tables, { cascade = false } = {}) =>
      workbench('POST', '/tables/truncate', { branchName, body: { tables, cascade } }),
  }
}

/** A new branch: a copy of the database as it is now, served beside it. */
export async function branch({ name } = {}) {
  const made = await workbench('POST', '/branches', { body: name ? { name } : {} })
  return {
    ...scope(made.name),
    drop: () => workbench('DELETE', `/branches/${encodeURIComponent(made.name)}`),
  }
}

const main = () => scope(null)
export const asAnon = (options) => main().asAnon(options)
export const asService = (options) => main().asService(options)
export const asUser = (email, opts) => main().asUser(email, opts)
export const codes = (to) => main().codes(to)

/** Moves the clock tokens are issued and checked by (0: the real clock). */
export const setClock = (offsetSeconds) =>
  workbench('PUT', '/clock', { body: { offset_seconds: offsetSeconds } })

/**
 * Resolves when `result` (a supabase-js call, or its promise) was refused: a 42501 (permission
 * denied, a row level security check), or a 401/403. Rejects otherwise, saying what came back.
 */
export async function expectDenied(result) {
  const r = await result
  const status = r?.status ?? r?.error?.status
  const code = r?.error?.code
  if (code === '42501' || status === 401 || status === 403) return r.error
  const what = r?.error
    ? `error ${code ?? ''} ${r.error.message}`
    : `status ${status} with ${JSON.stringify(r?.data)?.slice(0, 200)}`
  throw new Error(`expected the request to be denied, but it got ${what}`)
}
