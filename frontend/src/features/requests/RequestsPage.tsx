import * as React from 'react'
import { Link } from 'react-router-dom'
import { ChevronRight } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { AdminTable, type Column } from '@/admin/AdminTable'
import { useFailureToast } from '@/admin/useFailureToast'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { fulfilmentLabel, occasionLabel, sizeLabel } from '@/features/bouquet/schema'
import { cn } from '@/lib/utils'
import {
  receivedAgo,
  requestStatuses,
  statusLabel,
  useRequests,
  type RequestRow,
  type RequestStatus,
} from './api'

export function StatusBadge({ status }: { status: RequestStatus }) {
  return (
    <Badge tone={status === 'new' ? 'attention' : status === 'contacted' ? 'neutral' : 'good'}>
      {statusLabel(status)}
    </Badge>
  )
}

const columns: Column<RequestRow>[] = [
  {
    heading: 'Customer',
    primary: true,
    cell: (r) => (
      <div className="flex items-start gap-2">
        {r.read_at === null && (
          <span
            className="mt-1.5 size-2 shrink-0 rounded-full bg-rose-600"
            title="Unread"
            aria-label="Unread"
            role="img"
          />
        )}
        <div className="min-w-0">
          <Link
            to={`/admin/requests/${r.id}`}
            className={cn(
              'hover:text-rose-700 hover:underline',
              r.read_at === null ? 'font-bold' : 'font-semibold',
            )}
          >
            {r.customer_name}
          </Link>
          <p className="truncate text-xs text-muted-foreground">
            {r.customer_phone} · {r.customer_email}
          </p>
        </div>
      </div>
    ),
  },
  {
    heading: 'Received',
    cell: (r) => (
      <time dateTime={r.created_at} title={new Date(r.created_at).toLocaleString()}>
        {receivedAgo(r.created_at)}
      </time>
    ),
  },
  {
    heading: 'For',
    cell: (r) =>
      r.wanted_on ? (
        <span>
          {fulfilmentLabel(r.fulfilment)}{' '}
          <time dateTime={r.wanted_on}>{shortDay(r.wanted_on)}</time>
        </span>
      ) : (
        <span className="text-muted-foreground">Not given</span>
      ),
  },
  { heading: 'Occasion', cell: (r) => occasionLabel(r.occasion) },
  { heading: 'Size', cell: (r) => sizeLabel(r.size) },
  { heading: 'Status', cell: (r) => <StatusBadge status={r.status} /> },
]

type Filter = RequestStatus | 'all'
type Kind = 'all' | 'delivery' | 'pickup'

/** "Thu, Nov 26" for "2026-11-26". */
const shortDay = (day: string) =>
  new Date(`${day}T12:00:00Z`).toLocaleDateString('en-US', {
    weekday: 'short',
    month: 'short',
    day: 'numeric',
    timeZone: 'UTC',
  })

/** Whether a request matches what was typed: its reference, a name or a phone number. */
const matches = (r: RequestRow, q: string) =>
  !q ||
  [r.reference, r.customer_name, r.customer_phone, r.customer_email, r.recipient_name].some((v) =>
    v?.toLowerCase().includes(q.toLowerCase()),
  )

export default function RequestsPage() {
  const requests = useRequests()
  useFailureToast(requests.error, 'Failed to fetch requests')
  const [filter, setFilter] = React.useState<Filter>('all')
  const [kind, setKind] = React.useState<Kind>('all')
  const [query, setQuery] = React.useState('')
  const all = (requests.error ? [] : requests.data)?.filter(
    (r) => (kind === 'all' || r.fulfilment === kind) && matches(r, query.trim()),
  )
  const count = (s: Filter) => (all ?? []).filter((r) => s === 'all' || r.status === s).length
  const rows = all?.filter((r) => filter === 'all' || r.status === filter)
  const filters: { value: Filter; label: string }[] = [
    { value: 'all', label: 'All' },
    ...requestStatuses,
  ]
  const kinds: { value: Kind; label: string }[] = [
    { value: 'all', label: 'Delivery and pick-up' },
    { value: 'delivery', label: 'Delivery' },
    { value: 'pickup', label: 'Pick-up' },
  ]
  return (
    <div className="space-y-6">
      <div>
        <h1 className="font-display text-4xl font-bold">Requests</h1>
        <p className="mt-1 text-muted-foreground">
          Bouquet requests from the website, newest first. We promise a call within 24 hours.
        </p>
      </div>
      <div className="flex flex-wrap gap-2" role="group" aria-label="Show requests">
        {filters.map((f) => (
          <Button
            key={f.value}
            size="sm"
            variant={filter === f.value ? 'default' : 'outline'}
            aria-pressed={filter === f.value}
            onClick={() => setFilter(f.value)}
          >
            {f.label} <span className="tabular-nums">({count(f.value)})</span>
          </Button>
        ))}
      </div>
      <div className="flex flex-wrap items-end gap-4">
        <div className="space-y-1">
          <Label htmlFor="request-search">Find</Label>
          <Input
            id="request-search"
            type="search"
            className="w-64"
            placeholder="Reference, name or phone"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
          />
        </div>
        <div className="flex flex-wrap gap-2" role="group" aria-label="Delivery or pick-up">
          {kinds.map((k) => (
            <Button
              key={k.value}
              size="sm"
              variant={kind === k.value ? 'default' : 'outline'}
              aria-pressed={kind === k.value}
              onClick={() => setKind(k.value)}
            >
              {k.label}
            </Button>
          ))}
        </div>
      </div>
      <AdminTable
        rows={rows}
        columns={columns}
        rowKey={(r) => r.id}
        testId="request-row"
        loadingText="Loading requests..."
        emptyText={
          filter === 'all' ? 'No requests yet' : `No ${statusLabel(filter).toLowerCase()} requests`
        }
        rowClassName={(r) => (r.read_at === null ? 'bg-rose-50/60' : undefined)}
        actions={(r) => (
          <div className="flex justify-end">
            <Button asChild variant="outline" size="sm">
              <Link
                to={`/admin/requests/${r.id}`}
                aria-label={`Open the request of ${r.customer_name}`}
              >
                Open <ChevronRight aria-hidden="true" />
              </Link>
            </Button>
          </div>
        )}
      />
    </div>
  )
}
