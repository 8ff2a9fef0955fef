/** An Edge Function's call as the page makes it: pure, so that its rules are unit-tested. */

export const METHODS = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE'] as const
export type Method = (typeof METHODS)[number]

/** A body sent at most (the gateway's own limit is larger; this is the page's). */
export const MAX_BODY = 256 * 1024
/** Calls the page remembers. */
export const KEPT_CALLS = 50

export interface Call {
  at: string
  slug: string
  method: Method
  role: string
  status: number | null
  ms: number
  body: string
}

/** The request: its URL, headers and body; a GET or DELETE carries none, a JSON body says so.
 * `key` is the API key; `bearer` a user's access token (else the key is the bearer too). */
export function request(
  apiUrl: string,
  slug: string,
  method: Method,
  key: string,
  body: string,
  bearer?: string,
): { url: string; init: RequestInit } {
  if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(slug)) throw new Error(`"${slug}" is not a function's name`)
  if (new TextEncoder().encode(body).length > MAX_BODY)
    throw new Error(`the body is larger than ${MAX_BODY / 1024} KiB`)
  const headers: Record<string, string> = { Authorization: `Bearer ${bearer ?? key}`, apikey: key }
  const sends = method !== 'GET' && method !== 'DELETE' && body !== ''
  if (sends) {
    let json = true
    try {
      JSON.parse(body)
    } catch {
      json = false
    }
    headers['Content-Type'] = json ? 'application/json' : 'text/plain'
  }
  return {
    url: `${apiUrl.replace(/\/$/, '')}/functions/v1/${slug}`,
    init: { method, headers, body: sends ? body : undefined },
  }
}

/** How a call is made: with the publishable key, the secret key, or as a user. */
export type CallAs = 'anon' | 'service_role' | 'user'

/** The words the calls table shows for who a call was made as. */
export function asWho(as: CallAs, email?: string): string {
  return as === 'user' ? `user ${email ?? '?'}` : as
}

/** The newest call first, KEPT_CALLS at most. */
export function remember(calls: Call[], call: Call): Call[] {
  return [call, ...calls].slice(0, KEPT_CALLS)
}
