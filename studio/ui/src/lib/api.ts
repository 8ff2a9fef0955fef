/** Studio's own API (same origin): JSON in and out; errors carry PostgreSQL's details. */
export class ApiError extends Error {
  status: number
  code?: string
  detail?: string | null
  hint?: string | null
  line?: number | null
  column?: number | null

  constructor(status: number, body: Record<string, unknown>) {
    super(typeof body.message === 'string' ? body.message : `Studio answered ${status}`)
    this.status = status
    this.code = body.code as string | undefined
    this.detail = body.detail as string | null | undefined
    this.hint = body.hint as string | null | undefined
    this.line = body.line as number | null | undefined
    this.column = body.column as number | null | undefined
  }
}

export async function api<T>(
  path: string,
  init: { method?: string; json?: unknown } = {},
): Promise<T> {
  const res = await fetch(`/api${path}`, {
    method: init.method ?? 'GET',
    // Writes carry this header: a page on another site cannot send it without asking first.
    headers: {
      'X-Studio': '1',
      ...(init.json !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
  })
  const text = await res.text()
  const body = text ? JSON.parse(text) : null
  if (!res.ok) throw new ApiError(res.status, body ?? {})
  return body as T
}

/** `a=b&c=d` pairs for a URL, in order. */
export function query(pairs: [string, string][]): string {
  const p = new URLSearchParams()
  for (const [k, v] of pairs) p.append(k, v)
  const s = p.toString()
  return s ? `?${s}` : ''
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}
