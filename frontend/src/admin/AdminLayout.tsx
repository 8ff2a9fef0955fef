import * as React from 'react'
import { Link, Navigate, Outlet, useNavigate } from 'react-router-dom'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { ShieldAlert, WifiOff } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { TooltipProvider } from '@/components/ui/tooltip'
import { toast } from '@/components/ui/use-toast'
import { AuthProvider, isAdmin, useAuth } from '@/features/auth/session'
import { describeError, isUnreachable, type ServiceError } from '@/lib/errors'
import { sweepUnusedImages } from '@/lib/images'
import { useLiveInvalidation } from '@/lib/live'
import { supabase } from '@/lib/supabase'
import { usePageMeta } from '@/lib/usePageMeta'
import { Sidebar, SidebarProvider, SidebarTrigger } from './Sidebar'

export function useSignOut() {
  const navigate = useNavigate()
  return async () => {
    const { error } = await supabase.auth.signOut()
    if (error) {
      toast({ variant: 'destructive', title: 'Error signing out', description: error.message })
      return
    }
    toast({ title: 'Signed out successfully' })
    navigate('/auth')
  }
}

function Loading() {
  return (
    <div className="flex min-h-screen items-center justify-center bg-cream-100" role="status">
      <span className="text-muted-foreground">Loading…</span>
    </div>
  )
}

/** The access check could not be made: the server is unreachable (tried again by itself) or
 * failed; never taken for "not an administrator". */
function CheckFailed({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  const unreachable = isUnreachable(error)
  return (
    <main className="flex min-h-screen items-center justify-center bg-cream-100 px-4">
      <div
        className="max-w-md rounded-lg border bg-card p-8 text-center shadow-sm"
        role="status"
        aria-live="polite"
      >
        <WifiOff className="mx-auto size-10 text-rose-600" aria-hidden="true" />
        <h1 className="mt-3 font-display text-3xl font-bold">
          {unreachable ? 'Can’t reach the server' : 'Could not check your access'}
        </h1>
        <p className="mt-2 text-muted-foreground">
          {unreachable
            ? 'The shop’s server does not answer right now. We keep trying and continue by ourselves as soon as it is back.'
            : describeError(error as ServiceError)}
        </p>
        <Button className="mt-6" onClick={onRetry}>
          Try again now
        </Button>
      </div>
    </main>
  )
}

/** While queries cannot reach the server: say so, and how old what is shown is. */
function ConnectionBanner() {
  const client = useQueryClient()
  const [since, setSince] = React.useState<number | null>(null)
  React.useEffect(() => {
    const waiting = (q: { state: { fetchFailureCount: number; fetchFailureReason: unknown } }) =>
      q.state.fetchFailureCount > 0 && isUnreachable(q.state.fetchFailureReason)
    const check = () =>
      setSince((s) => (client.getQueryCache().getAll().some(waiting) ? (s ?? Date.now()) : null))
    check()
    return client.getQueryCache().subscribe((event) => {
      // The server answers again: the queries still waiting for their next try go now.
      if (
        event.type === 'updated' &&
        event.action.type === 'success' &&
        client.getQueryCache().getAll().some(waiting)
      ) {
        void client.refetchQueries({ predicate: waiting })
      }
      check()
    })
  }, [client])
  if (since === null) return null
  const loadedAt = new Date(since).toLocaleTimeString([], { hour: 'numeric', minute: '2-digit' })
  return (
    <div
      role="status"
      className="flex items-center gap-2 border-b border-amber-300 bg-amber-50 px-4 py-2 text-sm text-amber-950"
    >
      <WifiOff className="size-4 shrink-0" aria-hidden="true" />
      <span>
        Can’t reach the server, retrying… What you see was loaded before {loadedAt} and may be out
        of date.
      </span>
    </div>
  )
}

/** The admin area: loading, then /auth, 'Access Denied', or the sidebar layout. */
export default function AdminLayout() {
  // The session lives only in the admin chunks, so the public pages never load supabase-js auth code.
  return (
    <AuthProvider>
      <GuardedLayout />
    </AuthProvider>
  )
}

function GuardedLayout() {
  usePageMeta('Admin', 'Shop administration')
  const { session, loading } = useAuth()
  const signOut = useSignOut()
  const userId = session?.user.id
  const admin = useQuery({
    queryKey: ['is-admin', userId],
    enabled: !!userId,
    queryFn: () => isAdmin(userId!),
  })

  if (loading) return <Loading />
  if (!session) return <Navigate to="/auth" replace />
  const checkFailure = admin.error ?? admin.failureReason
  if (admin.data === undefined && checkFailure)
    return <CheckFailed error={checkFailure} onRetry={() => void admin.refetch()} />
  if (admin.data === undefined) return <Loading />
  if (!admin.data) {
    return (
      <main className="flex min-h-screen items-center justify-center bg-cream-100 px-4">
        <div className="max-w-md rounded-lg border bg-card p-8 text-center shadow-sm">
          <ShieldAlert className="mx-auto size-10 text-rose-600" aria-hidden="true" />
          <h1 className="mt-3 font-display text-3xl font-bold">Access Denied</h1>
          <p className="mt-2 text-muted-foreground">
            You are signed in as {session.user.email}, but this account is not a shop administrator.
          </p>
          <div className="mt-6 flex justify-center gap-3">
            <Button variant="outline" asChild>
              <Link to="/">Back to the shop</Link>
            </Button>
            <Button onClick={signOut}>Sign Out</Button>
          </div>
        </div>
      </main>
    )
  }
  return <AdminShell email={session.user.email ?? ''} onSignOut={signOut} />
}

/** A page still loading; after a few seconds, that the server may be unreachable. */
function PageLoading() {
  const [slow, setSlow] = React.useState(false)
  React.useEffect(() => {
    const t = setTimeout(() => setSlow(true), 3000)
    return () => clearTimeout(t)
  }, [])
  return (
    <p role="status" className="text-muted-foreground">
      {slow
        ? 'Can’t reach the server, retrying… The page appears as soon as it answers.'
        : 'Loading…'}
    </p>
  )
}

let swept = false

/** The signed-in admin's area: sidebar, header and the page, kept up to date live. */
function AdminShell({ email, onSignOut }: { email: string; onSignOut: () => void }) {
  useLiveInvalidation(['products', 'categories', 'product_categories', 'bouquet_requests'])
  React.useEffect(() => {
    // Once per visit: uploads no row uses any more (an hour old) go.
    if (swept) return
    swept = true
    void sweepUnusedImages()
  }, [])
  return (
    <TooltipProvider delayDuration={300}>
      <SidebarProvider>
        <Sidebar onSignOut={onSignOut} />
        <div className="flex min-w-0 flex-1 flex-col bg-cream-100">
          <header className="sticky top-0 z-10 flex h-14 items-center gap-2 border-b bg-cream-50/95 px-3 backdrop-blur">
            <SidebarTrigger />
            <Link
              to="/"
              className="text-sm font-semibold text-muted-foreground hover:text-rose-700"
            >
              View site
            </Link>
            <span className="ml-auto truncate text-sm text-muted-foreground">{email}</span>
          </header>
          <ConnectionBanner />
          <main className="flex-1 p-4 sm:p-6">
            <React.Suspense fallback={<PageLoading />}>
              <Outlet />
            </React.Suspense>
          </main>
        </div>
      </SidebarProvider>
    </TooltipProvider>
  )
}
