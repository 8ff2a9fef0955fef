import type { SupabaseClient, SupabaseClientOptions } from '@supabase/supabase-js'

/** What the auth API sent by mail or text (from the caught messages). */
export interface Sent {
  channel: 'email' | 'sms'
  to: string
  kind: string
  code: string | null
  link: string | null
  sent_at: string
  /** Its one-time token is still unused. */
  pending: boolean
}

/** A caught e-mail. */
export interface Mail {
  to: string
  from: { name: string; address: string }
  /** Where replies go (empty: to the sender). */
  reply_to: string[]
  subject: string
  text: string
  kind: string
  sent_at: string
}

type Options = SupabaseClientOptions<'public'>

/** Clients and helpers on one database: the project's, or a branch's. */
export interface Scope {
  /** The branch's name (null: the project's own database). */
  name: string | null
  /** The headers that route a request to it. */
  headers: Record<string, string>
  client<DB = any>(key?: string, options?: Options): SupabaseClient<DB>
  asAnon<DB = any>(options?: Options): SupabaseClient<DB>
  asService<DB = any>(options?: Options): SupabaseClient<DB>
  /** Creates the user (confirmed) unless it exists, and signs in as them. */
  asUser<DB = any>(
    email: string,
    opts?: { password?: string; metadata?: Record<string, unknown>; options?: Options },
  ): Promise<SupabaseClient<DB>>
  codes(to?: string): Promise<Sent[]>
  mail(to?: string): Promise<Mail[]>
  deleteUsers(): Promise<number>
  truncate(tables: string[], opts?: { cascade?: boolean }): Promise<null>
}

export interface Branch extends Scope {
  name: string
  drop(): Promise<null>
}

/** Options every client gets (e.g. `{ realtime: { transport: WebSocket } }` on Node 20). */
export function setClientDefaults(options: Options): void
export function configure(settings: { url: string; anonKey: string; serviceKey: string }): void
export function branch(opts?: { name?: string }): Promise<Branch>
export function asAnon<DB = any>(options?: Options): SupabaseClient<DB>
export function asService<DB = any>(options?: Options): SupabaseClient<DB>
export function asUser<DB = any>(
  email: string,
  opts?: { password?: string; metadata?: Record<string, unknown>; options?: Options },
): Promise<SupabaseClient<DB>>
export function codes(to?: string): Promise<Sent[]>
export function setClock(offsetSeconds: number): Promise<{ offset_seconds: number; now: number }>
export function expectDenied(
  result:
    | PromiseLike<{ error: any; status?: number; data?: unknown }>
    | { error: any; status?: number },
): Promise<{ code?: string; message: string }>
