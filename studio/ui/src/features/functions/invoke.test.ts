import { describe, expect, it } from 'vitest'
import { KEPT_CALLS, MAX_BODY, asWho, remember, request, type Call } from './invoke'

describe('invoking a function', () => {
  it('sends the key, and a body with its type only where a method has one', () => {
    const cases: [Parameters<typeof request>, string, string | undefined, string | undefined][] = [
      [
        ['http://127.0.0.1:54321', 'echo', 'POST', 'k', '{"a":1}'],
        'http://127.0.0.1:54321/functions/v1/echo',
        '{"a":1}',
        'application/json',
      ],
      [
        ['http://127.0.0.1:54321/', 'echo', 'POST', 'k', 'hello'],
        'http://127.0.0.1:54321/functions/v1/echo',
        'hello',
        'text/plain',
      ],
      [
        ['http://x', 'echo', 'GET', 'k', '{"a":1}'],
        'http://x/functions/v1/echo',
        undefined,
        undefined,
      ],
      [['http://x', 'echo', 'POST', 'k', ''], 'http://x/functions/v1/echo', undefined, undefined],
    ]
    for (const [args, url, body, type] of cases) {
      const r = request(...args)
      expect(r.url).toBe(url)
      expect(r.init.body).toBe(body)
      const headers = r.init.headers as Record<string, string>
      expect(headers['Content-Type']).toBe(type)
      expect(headers.Authorization).toBe('Bearer k')
    }
  })

  it("carries a user's token as the bearer beside the publishable key", () => {
    const r = request('http://x', 'echo', 'GET', 'anon-key', '', 'user-token')
    const headers = r.init.headers as Record<string, string>
    expect(headers.Authorization).toBe('Bearer user-token')
    expect(headers.apikey).toBe('anon-key')
    expect(asWho('user', 'ada@example.com')).toBe('user ada@example.com')
    expect(asWho('service_role')).toBe('service_role')
  })

  it("refuses a name that is not a function's and a body too large", () => {
    expect(() => request('http://x', '../auth/v1/admin', 'GET', 'k', '')).toThrow(
      'is not a function',
    )
    expect(() => request('http://x', 'echo', 'POST', 'k', 'x'.repeat(MAX_BODY + 1))).toThrow(
      'larger than 256 KiB',
    )
  })

  it('remembers the newest calls first, boundedly', () => {
    const call = (n: number): Call => ({
      at: `${n}`,
      slug: 'echo',
      method: 'GET',
      role: 'anon',
      status: 200,
      ms: 1,
      body: '',
    })
    let calls: Call[] = []
    for (let n = 0; n < KEPT_CALLS + 5; n++) calls = remember(calls, call(n))
    expect(calls).toHaveLength(KEPT_CALLS)
    expect(calls[0].at).toBe(`${KEPT_CALLS + 4}`)
  })
})
