import { createContext, useContext, type ReactNode } from 'react'
import { useQuery, useSuspenseQuery } from '@tanstack/react-query'
import type { SupabaseClient } from '@supabase/supabase-js'
import { api, errorText } from './api'

/** What Studio is signed in with (from loopback: the service role, as the CLI's Studio). */
export interface Session {
  project: string
  version: string
  api_url: string
  anon_key: string
  service_key: string
  mail: boolean
  realtime: boolean
  functions: string[]
}

interface Ctx {
  session: Session
}

const SessionContext = createContext<Ctx | null>(null)

export function SessionProvider({ children }: { children: ReactNode }) {
  const q = useQuery({
    queryKey: ['session'],
    queryFn: () => api<Session>('/session'),
    staleTime: Infinity,
  })
  const value = q.data ? { session: q.data } : null
  if (q.error)
    return (
      <main className="p-8">
        <h1 className="text-lg font-semibold">Studio could not sign in</h1>
        <p className="mt-2 text-muted-foreground">{errorText(q.error)}</p>
      </main>
    )
  if (!value) return <p className="p-8 text-muted-foreground">Signing in…</p>
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>
}

export function useSession(): Ctx {
  const c = useContext(SessionContext)
  if (!c) throw new Error('useSession outside SessionProvider')
  return c
}

/**
 * supabase-js as the service role, on the project's API. Its code is fetched the first time a
 * page needs it (users, storage, realtime): the table editor and the SQL editor do without.
 */
export function useSupabase(): SupabaseClient {
  const { session } = useSession()
  return useSuspenseQuery({
    queryKey: ['supabase-js', session.api_url],
    staleTime: Infinity,
    gcTime: Infinity,
    queryFn: async () => {
      const { createClient } = await import('@supabase/supabase-js')
      return createClient(session.api_url, session.service_key, {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      })
    },
  }).data
}
