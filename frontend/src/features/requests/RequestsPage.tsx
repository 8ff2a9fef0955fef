import * as React from 'react'
import { Link } from 'react-router-dom'
import { ChevronRight } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { AdminTable, type Column } from '@/admin/AdminTable'
import { useFailureToast } from '@/admin/useFailureToast'
import { occasionLabel, sizeLabel } from '@/features/bouquet/schema'
import { cn } from '@/lib/utils'
import { receivedAgo, requestStatuses, statusLabel, useRequests, type RequestRow, type RequestStatus } from './api'

export function StatusBadge({ status }: { status: RequestStatus }) {
  return <Badge tone={status === 'new' ? 'attention' : status === 'contacted' ? 'neutral' : 'good'}>{statusLabel(status)}</Badge>
}

const columns: Column<RequestRow>[] = [
  {
    heading: 'Customer',
    primary: true,
    cell: (r) => (
      <div className="flex items-start gap-2">
        {r.read_at === null && <span className="mt-1.5 size-2 shrink-0 rounded-full bg-rose-600" title="Unread" aria-label="Unread" role="img" />}
        <div className="min-w-0">
          <Link to={`/admin/requests/${r.id}`} className={cn('hover:text-rose-700 hover:underline', r.read_at === null ? 'font-bold' : 'font-semibold')}>
            {r.customer_name}
          </Link>
          <p className="truncate text-xs text-muted-foreground">{r.customer_phone} · {r.customer_email}</p>
        </div>
      </div>
    ),
  },
  { heading: 'Received', cell: (r) => <time dateTime={r.created_at} title={new Date(r.created_at).toLocaleString()}>{receivedAgo(r.created_at)}</time> },
  { heading: 'Occasion', cell: (r) => occasionLabel(r.occasion) },
  { heading: 'Size', cell: (r) => sizeLabel(r.size) },
  { heading: 'Status', cell: (r) => <StatusBadge status={r.status} /> },
]

type Filter = RequestStatus | 'all'

export default function RequestsPage() {
  const requests = useRequests()
  useFailureToast(requests.error, 'Failed to fetch requests')
  const [filter, setFilter] = React.useState<Filter>('all')
  const all = requests.error ? [] : requests.data
  const count = (s: Filter) => (all ?? []).filter((r) => s === 'all' || r.status === s).length
  const rows = all?.filter((r) => filter === 'all' || r.status === filter)
  const filters: { value: Filter; label: string }[] = [{ value: 'all', label: 'All' }, ...requestStatuses]
  return (
    <div className="space-y-6">
      <div>
        <h1 className="font-display text-4xl font-bold">Requests</h1>
        <p className="mt-1 text-muted-foreground">Bouquet requests from the website, newest first. We promise a call within 24 hours.</p>
      </div>
      <div className="flex flex-wrap gap-2" role="group" aria-label="Show requests">
        {filters.map((f) => (
          <Button key={f.value} size="sm" variant={filter === f.value ? 'default' : 'outline'} aria-pressed={filter === f.value} onClick={() => setFilter(f.value)}>
            {f.label} <span className="tabular-nums opacity-80">({count(f.value)})</span>
          </Button>
        ))}
      </div>
      <AdminTable
        rows={rows}
        columns={columns}
        rowKey={(r) => r.id}
        testId="request-row"
        loadingText="Loading requests..."
        emptyText={filter === 'all' ? 'No requests yet' : `No ${statusLabel(filter).toLowerCase()} requests`}
        rowClassName={(r) => (r.read_at === null ? 'bg-rose-50/60' : undefined)}
        actions={(r) => (
          <div className="flex justify-end">
            <Button asChild variant="outline" size="sm">
              <Link to={`/admin/requests/${r.id}`} aria-label={`Open the request of ${r.customer_name}`}>
                Open <ChevronRight aria-hidden="true" />
              </Link>
            </Button>
          </div>
        )}
      />
    </div>
  )
}
