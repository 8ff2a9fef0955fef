import * as React from 'react'
import { Link, Navigate, useNavigate, useParams } from 'react-router-dom'
import { useQueryClient } from '@tanstack/react-query'
import { ArrowLeft, Mail, Phone, Trash2 } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { DetailRow } from '@/components/ui/detail-row'
import { ConfirmDialog } from '@/components/ui/alert-dialog'
import { toast } from '@/components/ui/use-toast'
import { useFailureToast } from '@/admin/useFailureToast'
import { Label } from '@/components/ui/label'
import { Textarea } from '@/components/ui/textarea'
import {
  fulfilmentLabel,
  longDate,
  occasionLabel,
  price,
  sizeLabel,
  styleLabel,
} from '@/features/bouquet/schema'
import { site } from '@/config/site'
import { describeError } from '@/lib/errors'
import { SaveFailure, useSave } from '@/admin/useSave'
import {
  deleteRequest,
  markRead,
  receivedAgo,
  requestStatuses,
  saveNotes,
  setStatus,
  useRequest,
  type RequestRow,
  type RequestStatus,
} from './api'
import { StatusBadge } from './RequestsPage'

/** The shop's own notes on a request, saved when asked. */
function Notes({ r, onSaved }: { r: RequestRow; onSaved: () => void }) {
  const [text, setText] = React.useState(r.notes ?? '')
  const [saving, setSaving] = React.useState(false)
  const attempt = useSave('Failed to save notes')
  const save = async () => {
    setSaving(true)
    const done = await attempt.run(() => saveNotes(r.id, text))
    setSaving(false)
    if (!done) return
    toast({ title: 'Notes saved' })
    onSaved()
  }
  return (
    <section aria-labelledby="notes-heading" className="space-y-3 rounded-lg border bg-card p-6">
      <h2 id="notes-heading" className="font-display text-2xl font-semibold">
        Notes
      </h2>
      <Label htmlFor="request-notes" className="sr-only">
        Notes
      </Label>
      <Textarea
        id="request-notes"
        rows={4}
        maxLength={4000}
        value={text}
        onChange={(e) => setText(e.target.value)}
        placeholder="Quoted $70 with delivery; called Tuesday…"
      />
      <SaveFailure
        message={attempt.failure}
        onRetry={() => void save()}
        busy={saving}
        what="Your notes were"
      />
      <Button onClick={save} disabled={saving || text === (r.notes ?? '')}>
        {saving ? 'Saving…' : 'Save notes'}
      </Button>
    </section>
  )
}

/** One request: what the customer asked for, how to reach them, and where it stands. */
export default function RequestDetailPage() {
  const { id = '' } = useParams()
  const navigate = useNavigate()
  const client = useQueryClient()
  const request = useRequest(id)
  useFailureToast(request.error, 'Failed to fetch requests')
  const r = request.data
  const refresh = React.useCallback(
    () => client.invalidateQueries({ queryKey: ['requests'] }),
    [client],
  )

  // Opening a request reads it.
  React.useEffect(() => {
    if (r && r.read_at === null) void markRead(r.id).then(refresh)
  }, [r, refresh])

  if (request.isPending) return <p role="status">Loading…</p>
  if (request.error) return null
  if (!r) return <Navigate to="/admin/requests" replace />

  const changeStatus = async (status: RequestStatus) => {
    const { error } = await setStatus(r.id, status)
    if (error) {
      toast({
        variant: 'destructive',
        title: 'Failed to update request',
        description: describeError(error),
      })
      return
    }
    toast({ title: `Marked as ${status === 'new' ? 'new' : status}`, description: r.customer_name })
    void refresh()
    void client.invalidateQueries({ queryKey: ['dashboard'] })
  }
  const remove = async () => {
    const { error } = await deleteRequest(r.id)
    if (error) {
      toast({
        variant: 'destructive',
        title: 'Failed to delete request',
        description: describeError(error),
      })
      return
    }
    toast({ title: 'Request deleted' })
    void refresh()
    navigate('/admin/requests')
  }
  const mailto = `mailto:${r.customer_email}?subject=${encodeURIComponent(`Your bouquet request at ${site.name}`)}`
  return (
    <div className="max-w-3xl space-y-6">
      <Button variant="ghost" asChild>
        <Link to="/admin/requests">
          <ArrowLeft aria-hidden="true" /> Requests
        </Link>
      </Button>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h1 className="font-display text-4xl font-bold">{r.customer_name}</h1>
          <p className="mt-1 text-muted-foreground">
            Reference <span className="font-mono font-semibold text-foreground">{r.reference}</span>{' '}
            · Received <time dateTime={r.created_at}>{receivedAgo(r.created_at)}</time> ·{' '}
            {new Date(r.created_at).toLocaleString()}
          </p>
        </div>
        <StatusBadge status={r.status} />
      </div>
      <div className="flex flex-wrap gap-3">
        <Button asChild>
          <a href={`tel:${r.customer_phone.replace(/[^\d+]/g, '')}`}>
            <Phone aria-hidden="true" /> Call {r.customer_phone}
          </a>
        </Button>
        <Button asChild variant="outline">
          <a href={mailto}>
            <Mail aria-hidden="true" /> E-mail {r.customer_email}
          </a>
        </Button>
      </div>
      <section aria-label="The request" className="rounded-lg border bg-card p-6">
        <dl className="space-y-3">
          <DetailRow label={fulfilmentLabel(r.fulfilment)}>
            {r.wanted_on ? longDate(r.wanted_on) : 'No date given'}
          </DetailRow>
          {r.fulfilment === 'delivery' && (
            <>
              <DetailRow label="Recipient">
                {r.recipient_name}
                {r.recipient_phone ? `, ${r.recipient_phone}` : ''}
              </DetailRow>
              <DetailRow label="Delivery address">
                <span className="whitespace-pre-wrap">{r.delivery_address}</span>
              </DetailRow>
            </>
          )}
          <DetailRow label="Card message">
            <span className="whitespace-pre-wrap">{r.card_message ?? 'None'}</span>
          </DetailRow>
          <DetailRow label="Size">
            {sizeLabel(r.size)}
            {r.size_price !== null && ` · ${price(Number(r.size_price))}`}
          </DetailRow>
          <DetailRow label="Colors">{r.colors.join(', ')}</DetailRow>
          <DetailRow label="Design style">{styleLabel(r.design_style)}</DetailRow>
          <DetailRow label="Occasion">{occasionLabel(r.occasion)}</DetailRow>
          <DetailRow label="Named arrangement">
            {r.named_arrangement ? `The ${r.named_arrangement}` : 'No preference'}
          </DetailRow>
          <DetailRow label="Special requests">
            <span className="whitespace-pre-wrap">{r.special_requests ?? 'None'}</span>
          </DetailRow>
          <DetailRow label="Phone">{r.customer_phone}</DetailRow>
          <DetailRow label="E-mail">{r.customer_email}</DetailRow>
        </dl>
      </section>
      <section aria-labelledby="status-heading" className="space-y-3 rounded-lg border bg-card p-6">
        <h2 id="status-heading" className="font-display text-2xl font-semibold">
          Status
        </h2>
        <div className="flex flex-wrap gap-2" role="group" aria-label="Status">
          {requestStatuses.map((s) => (
            <Button
              key={s.value}
              variant={r.status === s.value ? 'default' : 'outline'}
              aria-pressed={r.status === s.value}
              onClick={() => r.status !== s.value && changeStatus(s.value)}
            >
              {s.label}
            </Button>
          ))}
        </div>
      </section>
      <Notes key={r.id} r={r} onSaved={() => void refresh()} />
      <ConfirmDialog
        title="Are you sure you want to delete this request?"
        description={`The request of ${r.customer_name} will be removed. This cannot be undone.`}
        onConfirm={remove}
        trigger={
          <Button variant="outline">
            <Trash2 className="text-destructive" aria-hidden="true" /> Delete request
          </Button>
        }
      />
    </div>
  )
}
