/** The Logs page's request filters: the query string Studio's API reads, and the same rules for
 * requests that arrive live. Pure, so that they are unit-tested. */

export const SERVICES = [
  'rest',
  'graphql',
  'auth',
  'storage',
  'realtime',
  'functions',
  'workbench',
  'other',
] as const

/** Requests one listing asks for (the API's bound is 500). */
export const PAGE = 100
/** Requests the page keeps in view at most. */
export const KEPT = 500

/** What a listing (and a live event) says of a request. */
export interface RequestSummary {
  seq: number
  id: string
  at: string
  method: string
  path: string
  status: number
  ms: number
  service?: string
  role: string | null
  sub?: string | null
  error?: string | { code?: string; message?: string } | null
}

export interface RequestFilters {
  /** `404`, `4xx` or `error`; empty: any. */
  status: string
  path: string
  role: string
  user: string
  service: string
}

export const NO_FILTERS: RequestFilters = { status: '', path: '', role: '', user: '', service: '' }

/** Whether any filter is set (blank ones do not count). */
export function filtered(f: RequestFilters): boolean {
  return (['status', 'path', 'role', 'user', 'service'] as const).some((k) => f[k].trim() !== '')
}

/** What the page says when no request is shown: why, and what to do. `perService` is how many
 * requests the gateway keeps per service (0: the history is off). */
export function emptyNote(
  f: RequestFilters,
  perService: number | undefined,
  apiUrl: string,
): string {
  if (filtered(f)) return 'No request matches these filters.'
  const kept =
    perService === 0
      ? ' The history is off (--request-history 0): only requests made while this page is open appear.'
      : ''
  return `No requests yet. Call the API from your app or with curl (${apiUrl}/rest/v1/…): each request appears here as it is answered. Studio's own calls are not kept.${kept}`
}

/** Why a status filter is not one, or null. */
export function statusProblem(status: string): string | null {
  const s = status.trim().toLowerCase()
  if (s === '' || s === 'error' || /^[1-5]xx$/.test(s)) return null
  if (/^\d{3}$/.test(s) && Number(s) >= 100 && Number(s) <= 599) return null
  return 'a status (404), a class (4xx) or "error"'
}

/** The API's address for a listing with these filters (`before`: the next page's). */
export function listPath(f: RequestFilters, before?: number, limit = PAGE): string {
  const p = new URLSearchParams()
  for (const key of ['status', 'path', 'role', 'user', 'service'] as const) {
    const v = f[key].trim()
    if (v) p.set(key, v)
  }
  if (before !== undefined) p.set('before', String(before))
  p.set('limit', String(limit))
  return `/logs/requests?${p}`
}

function statusKeeps(status: string, code: number): boolean {
  const s = status.trim().toLowerCase()
  if (!s) return true
  if (s === 'error') return code >= 400
  if (/^[1-5]xx$/.test(s)) return Math.floor(code / 100) === Number(s[0])
  return code === Number(s)
}

/** Whether a live request is one the filters keep (as the API decides for a listing). */
export function matches(f: RequestFilters, e: RequestSummary): boolean {
  const has = (v: string | null | undefined, part: string) =>
    (v ?? '').toLowerCase().includes(part.trim().toLowerCase())
  return (
    statusKeeps(f.status, e.status) &&
    (!f.path.trim() || has(e.path, f.path)) &&
    (!f.role.trim() || (e.role ?? '').toLowerCase() === f.role.trim().toLowerCase()) &&
    (!f.user.trim() || (!!e.sub && has(e.sub, f.user))) &&
    (!f.service || e.service === f.service)
  )
}

/** New requests before those shown, each once (by `seq`), newest first, KEPT at most. */
export function merge(shown: RequestSummary[], arrived: RequestSummary[]): RequestSummary[] {
  const seen = new Set<number>()
  return [...arrived, ...shown]
    .filter((e) => {
      if (seen.has(e.seq)) return false
      seen.add(e.seq)
      return true
    })
    .sort((a, b) => b.seq - a.seq)
    .slice(0, KEPT)
}

/** An error's text as a listing (a string) or a live event (code and message) gives it. */
export function errorOf(e: RequestSummary): string {
  if (!e.error) return ''
  if (typeof e.error === 'string') return e.error
  return [e.error.code, e.error.message].filter(Boolean).join(' ')
}

export function tone(status: number): 'bad' | 'warn' | 'good' {
  return status >= 500 ? 'bad' : status >= 400 ? 'warn' : 'good'
}
