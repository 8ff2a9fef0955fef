/**
 * A visitor's read of a public table through the REST API with a plain `fetch`, for the first
 * page a visitor sees (the home page), which must not wait for supabase-js (57 KB): rows typed
 * by the generated `Database`, filters in PostgREST's own words (`eq.true`). Every other page
 * reads through the one supabase client (lib/supabase.ts).
 */
import { apiConfig } from './apiConfig'
import type { Database } from './database.types'

type PublicTables = Database['public']['Tables']
export type TableName = keyof PublicTables
export type Row<T extends TableName> = PublicTables[T]['Row']

/** The query of a read: PostgREST's filters on the table's columns, and its own parameters. */
export type ReadQuery<T extends TableName> = Partial<
  Record<Extract<keyof Row<T>, string>, string>
> & {
  select?: string
  order?: string
  limit?: number
}

/** The query string of a read (URLSearchParams encodes every value). */
export function readUrl<T extends TableName>(base: string, table: T, query: ReadQuery<T>): string {
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v))
  return `${base.replace(/\/+$/, '')}/rest/v1/${table}?${params}`
}

/** Rows of `table` as the visitor (`anon`, row level security applied) reads them; throws with the
 * API's message when the read fails. */
export async function readRows<T extends TableName>(
  table: T,
  query: ReadQuery<T>,
  signal?: AbortSignal,
): Promise<Row<T>[]> {
  const { url, anonKey } = apiConfig()
  const res = await fetch(readUrl(url, table, query), {
    headers: { apikey: anonKey, authorization: `Bearer ${anonKey}`, accept: 'application/json' },
    signal,
  })
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { message?: string } | null
    throw new Error(body?.message ?? `Reading ${table} failed (${res.status})`)
  }
  return (await res.json()) as Row<T>[]
}

type PublicFunctions = Database['public']['Functions']
export type FunctionName = keyof PublicFunctions

/** A visitor's call of a public function (`POST /rest/v1/rpc/<name>`), typed by what it returns;
 * throws with the API's message when the call fails. */
export async function callRpc<F extends FunctionName>(
  fn: F,
  args: Record<string, unknown> = {},
  signal?: AbortSignal,
): Promise<PublicFunctions[F]['Returns']> {
  const { url, anonKey } = apiConfig()
  const res = await fetch(`${url.replace(/\/+$/, '')}/rest/v1/rpc/${fn}`, {
    method: 'POST',
    headers: {
      apikey: anonKey,
      authorization: `Bearer ${anonKey}`,
      accept: 'application/json',
      'content-type': 'application/json',
    },
    body: JSON.stringify(args),
    signal,
  })
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { message?: string } | null
    throw new Error(body?.message ?? `Calling ${fn} failed (${res.status})`)
  }
  return (await res.json()) as PublicFunctions[F]['Returns']
}
