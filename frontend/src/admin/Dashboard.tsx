import { Link } from 'react-router-dom'
import { useQuery } from '@tanstack/react-query'
import { Eye, EyeOff, FolderTree, Inbox, Package } from 'lucide-react'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { occasionLabel } from '@/features/bouquet/schema'
import { receivedAgo, useRequests } from '@/features/requests/api'
import { supabase } from '@/lib/supabase'
import { useFailureToast } from './useFailureToast'

interface Counts {
  total: number
  available: number
  unavailable: number
  categories: number
  new_requests: number
}

/** The dashboard's numbers, counted by the database in one call. */
function useDashboardCounts() {
  return useQuery({
    queryKey: ['dashboard'],
    queryFn: async () => {
      const { data, error } = await supabase.rpc('dashboard_counts')
      if (error) throw error
      return data as unknown as Counts
    },
  })
}

function NewRequests() {
  const requests = useRequests()
  const fresh = (requests.data ?? []).filter((r) => r.status === 'new').slice(0, 5)
  return (
    <section aria-labelledby="new-requests-heading" className="rounded-lg border bg-card p-6">
      <div className="flex items-center justify-between gap-3">
        <h2 id="new-requests-heading" className="font-display text-2xl font-semibold">
          New requests
        </h2>
        <Link to="/admin/requests" className="text-sm font-semibold text-rose-700 hover:underline">
          All requests
        </Link>
      </div>
      {requests.isPending ? (
        <p role="status" className="mt-3 text-muted-foreground">
          Loading requests...
        </p>
      ) : fresh.length === 0 ? (
        <p className="mt-3 text-muted-foreground">
          No new requests. We will show them here as they come in.
        </p>
      ) : (
        <ul className="mt-3 divide-y" data-testid="dashboard-requests">
          {fresh.map((r) => (
            <li key={r.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
              <Link
                to={`/admin/requests/${r.id}`}
                className="font-semibold hover:text-rose-700 hover:underline"
              >
                {r.customer_name}
              </Link>
              <span className="text-sm text-muted-foreground">{occasionLabel(r.occasion)}</span>
              <span className="ml-auto text-sm text-muted-foreground">
                {receivedAgo(r.created_at)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

export default function Dashboard() {
  const counts = useDashboardCounts()
  useFailureToast(counts.error, 'Failed to fetch products')
  const c = counts.data
  const cards = [
    { label: 'Total Products', value: c?.total, icon: Package },
    { label: 'Available Products', value: c?.available, icon: Eye },
    { label: 'Unavailable Products', value: c?.unavailable, icon: EyeOff },
    { label: 'Categories', value: c?.categories, icon: FolderTree },
    { label: 'New Requests', value: c?.new_requests, icon: Inbox },
  ]
  return (
    <div className="space-y-6">
      <h1 className="font-display text-4xl font-bold">Dashboard</h1>
      <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-5">
        {cards.map((card) => (
          <Card key={card.label}>
            <CardHeader className="flex flex-row items-center justify-between pb-2">
              <CardTitle className="font-sans text-sm font-semibold text-muted-foreground">
                {card.label}
              </CardTitle>
              <card.icon className="size-5 text-rose-600" aria-hidden="true" />
            </CardHeader>
            <CardContent>
              <p
                className="text-3xl font-bold"
                data-testid={`count-${card.label.toLowerCase().replace(/ /g, '-')}`}
              >
                {card.value ?? '…'}
              </p>
            </CardContent>
          </Card>
        ))}
      </div>
      <NewRequests />
    </div>
  )
}
