import type { User } from '@supabase/supabase-js'
import type { Session } from '@/lib/session'

/** A page of users from GoTrue's admin API, with its `filter` (supabase-js does not pass one). */
export async function listUsers(
  session: Session,
  page: number,
  perPage: number,
  filter = '',
): Promise<{ users: User[]; total: number }> {
  const url = `${session.api_url}/auth/v1/admin/users?${new URLSearchParams({ page: String(page), per_page: String(perPage), filter })}`
  const res = await fetch(url, {
    headers: { apikey: session.service_key, Authorization: `Bearer ${session.service_key}` },
  })
  const body = await res.json()
  if (!res.ok) throw new Error(body.msg ?? body.message ?? `Auth answered ${res.status}`)
  return {
    users: body.users as User[],
    total: Number(res.headers.get('x-total-count') ?? body.users.length),
  }
}
