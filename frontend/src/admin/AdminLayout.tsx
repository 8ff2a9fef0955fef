import * as React from 'react'
import { Link, Navigate, Outlet, useNavigate } from 'react-router-dom'
import { useQuery } from '@tanstack/react-query'
import { ShieldAlert } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { TooltipProvider } from '@/components/ui/tooltip'
import { toast } from '@/components/ui/use-toast'
import { AuthProvider, isAdmin, useAuth } from '@/features/auth/session'
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
            <Button variant="outline" asChild><Link to="/">Back to the shop</Link></Button>
            <Button onClick={signOut}>Sign Out</Button>
          </div>
        </div>
      </main>
    )
  }
  return <AdminShell email={session.user.email ?? ''} onSignOut={signOut} />
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
          <Link to="/" className="text-sm font-semibold text-muted-foreground hover:text-rose-700">View site</Link>
          <span className="ml-auto truncate text-sm text-muted-foreground">{email}</span>
        </header>
        <main className="flex-1 p-4 sm:p-6">
          <React.Suspense fallback={<p role="status">Loading…</p>}>
            <Outlet />
          </React.Suspense>
        </main>
      </div>
    </SidebarProvider>
    </TooltipProvider>
  )
}
