import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useNavigate, useParams } from 'react-router-dom'
import { api } from '@/lib/api'
import { useSupabase } from '@/lib/session'
import { Button } from '@/components/ui/button'
import { Dialog } from '@/components/ui/dialog'
import { ErrorNote } from '@/components/ErrorNote'
import { ValueTable } from '@/components/ValueTable'
import { PageHeader } from '@/components/Layout'
import { AuthNav } from './AuthNav'

interface SessionRow {
  id: string
  created_at: string
  refreshed_at: string | null
  aal: string
  user_agent: string | null
  ip: string | null
  not_after: string | null
}

export default function UserPage() {
  const { id = '' } = useParams()
  const supabase = useSupabase()
  const qc = useQueryClient()
  const navigate = useNavigate()
  const [note, setNote] = useState('')
  const [confirm, setConfirm] = useState(false)
  const user = useQuery({
    queryKey: ['user', id],
    queryFn: async () => {
      const { data, error } = await supabase.auth.admin.getUserById(id)
      if (error) throw error
      return data.user
    },
  })
  const sessions = useQuery({
    queryKey: ['sessions', id],
    queryFn: () => api<SessionRow[]>(`/users/${id}/sessions`),
  })
  const act = useMutation({
    mutationFn: async (
      what: 'recover' | 'sign-in-as' | 'delete' | { session: string } | { factor: string },
    ) => {
      const email = user.data?.email
      if (what === 'recover') {
        const { error } = await supabase.auth.resetPasswordForEmail(email!)
        if (error) throw error
        setNote(`A password recovery mail went to ${email} (see Mail and text messages).`)
      } else if (what === 'sign-in-as') {
        const { data, error } = await supabase.auth.admin.generateLink({
          type: 'magiclink',
          email: email!,
        })
        if (error) throw error
        window.open(data.properties.action_link, '_blank', 'noopener')
        setNote(
          `Opened a sign-in link for ${email} in a new tab: it lands on the site signed in as them.`,
        )
      } else if (what === 'delete') {
        const { error } = await supabase.auth.admin.deleteUser(id)
        if (error) throw error
        navigate('/auth/users')
      } else if ('session' in what) {
        await api(`/users/${id}/sessions/${what.session}`, { method: 'DELETE' })
      } else {
        const { error } = await supabase.auth.admin.mfa.deleteFactor({
          userId: id,
          id: what.factor,
        })
        if (error) throw error
      }
    },
    onSettled: () => {
      qc.invalidateQueries({ queryKey: ['user', id] })
      qc.invalidateQueries({ queryKey: ['sessions', id] })
    },
  })
  const u = user.data
  return (
    <div>
      <PageHeader title={u ? u.email || u.phone || u.id : 'User'}>
        <Button
          variant="outline"
          disabled={!u?.email || act.isPending}
          onClick={() => act.mutate('recover')}
        >
          Send password recovery
        </Button>
        <Button
          variant="outline"
          disabled={!u?.email || act.isPending}
          onClick={() => act.mutate('sign-in-as')}
          title="Generates a magic link and opens it"
        >
          Sign in as
        </Button>
        <Button variant="danger" onClick={() => setConfirm(true)}>
          Delete user
        </Button>
      </PageHeader>
      <AuthNav />
      <div className="space-y-4 p-4">
        <ErrorNote error={user.error ?? act.error} />
        {note ? (
          <p role="status" className="rounded-md bg-emerald-50 p-3 text-emerald-900">
            {note}
          </p>
        ) : null}
        {u ? (
          <>
            <dl className="grid grid-cols-[10rem_1fr] gap-x-4 gap-y-1 rounded-md border border-border bg-panel p-4">
              {[
                ['ID', u.id],
                ['E-mail', u.email],
                ['Phone', u.phone],
                ['Role', u.role],
                ['E-mail confirmed', u.email_confirmed_at],
                ['Created', u.created_at],
                ['Last sign-in', u.last_sign_in_at],
                ['App metadata', JSON.stringify(u.app_metadata)],
                ['User metadata', JSON.stringify(u.user_metadata)],
              ].map(([k, v]) => (
                <div key={k} className="contents">
                  <dt className="text-muted-foreground">{k}</dt>
                  <dd className="break-all font-mono text-xs">{v || '—'}</dd>
                </div>
              ))}
            </dl>
            <h2 className="font-semibold">Identities</h2>
            <ValueTable
              caption="Identities"
              rows={(u.identities ?? []).map((i) => ({
                provider: i.provider,
                identity: i.identity_data?.email ?? i.id,
                created: i.created_at,
                'last sign-in': i.last_sign_in_at,
              }))}
              empty="No identities."
            />
            <h2 className="font-semibold">MFA factors</h2>
            {(u.factors ?? []).length === 0 ? (
              <p className="text-muted-foreground">No factors.</p>
            ) : null}
            <ul className="space-y-1">
              {(u.factors ?? []).map((f) => (
                <li key={f.id} className="flex items-center gap-3">
                  <span className="font-mono text-xs">{f.factor_type}</span> {f.friendly_name} ·{' '}
                  {f.status}
                  <Button size="sm" variant="outline" onClick={() => act.mutate({ factor: f.id })}>
                    Remove
                  </Button>
                </li>
              ))}
            </ul>
            <h2 className="font-semibold">Sessions</h2>
            {sessions.data?.length === 0 ? (
              <p className="text-muted-foreground">Not signed in anywhere.</p>
            ) : null}
            <ul className="space-y-1">
              {sessions.data?.map((s) => (
                <li
                  key={s.id}
                  className="flex flex-wrap items-center gap-3 rounded-md border border-border bg-panel p-2 text-xs"
                >
                  <span className="font-mono">{s.id}</span>
                  <span>{s.aal}</span>
                  <span>since {new Date(s.created_at).toLocaleString()}</span>
                  <span className="text-muted-foreground">
                    {s.user_agent ?? ''} {s.ip ?? ''}
                  </span>
                  <Button
                    size="sm"
                    variant="outline"
                    className="ml-auto"
                    onClick={() => act.mutate({ session: s.id })}
                  >
                    End session
                  </Button>
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </div>
      <Dialog
        open={confirm}
        onOpenChange={setConfirm}
        title="Delete this user?"
        description="Their identities, factors and sessions go with them."
      >
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => setConfirm(false)}>
            Cancel
          </Button>
          <Button variant="danger" onClick={() => act.mutate('delete')}>
            Delete
          </Button>
        </div>
      </Dialog>
    </div>
  )
}
