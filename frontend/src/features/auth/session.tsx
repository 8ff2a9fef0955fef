import * as React from 'react'
import type { Session } from '@supabase/supabase-js'
import { supabase } from '@/lib/supabase'

interface AuthState {
  session: Session | null
  loading: boolean
}

const AuthContext = React.createContext<AuthState>({ session: null, loading: true })

/** The signed-in session, kept in local storage by supabase-js and refreshed automatically. */
export function AuthProvider({ children }: { children: React.ReactNode }) {
  const [state, setState] = React.useState<AuthState>({ session: null, loading: true })
  React.useEffect(() => {
    const { data } = supabase.auth.onAuthStateChange((_event, session) =>
      setState({ session, loading: false }),
    )
    supabase.auth
      .getSession()
      .then(({ data: { session } }) => setState({ session, loading: false }))
    return () => data.subscription.unsubscribe()
  }, [])
  return <AuthContext.Provider value={state}>{children}</AuthContext.Provider>
}

export function useAuth() {
  return React.useContext(AuthContext)
}

/** Whether this user has the admin role (a row in user_roles). A check that could not be made
 * (the server unreachable) throws: it is not an answer. */
export async function isAdmin(userId: string): Promise<boolean> {
  const { data, error } = await supabase
    .from('user_roles')
    .select('role')
    .eq('user_id', userId)
    .eq('role', 'admin')
    .single()
  // No row is the answer "not an admin".
  if (error?.code === 'PGRST116') return false
  if (error) throw error
  return !!data
}
