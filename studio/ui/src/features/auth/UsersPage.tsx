import { useState } from 'react'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from 'react-router-dom'
import { Plus, Send } from 'lucide-react'
import { useSession, useSupabase } from '@/lib/session'
import { Button } from '@/components/ui/button'
import { Field, Input } from '@/components/ui/input'
import { Badge } from '@/components/ui/badge'
import { Dialog } from '@/components/ui/dialog'
import { ErrorNote } from '@/components/ErrorNote'
import { PageHeader } from '@/components/Layout'
import { AuthNav } from './AuthNav'
import { listUsers } from './users'

const PER_PAGE = 50

function when(v?: string | null) {
  return v ? new Date(v).toLocaleString() : '—'
}

export default function UsersPage() {
  const { session } = useSession()
  const supabase = useSupabase()
  const qc = useQueryClient()
  const [search, setSearch] = useState('')
  const [page, setPage] = useState(1)
  const [dialog, setDialog] = useState<'create' | 'invite' | null>(null)
  const [form, setForm] = useState({ email: '', password: '', confirm: true })
  const users = useQuery({
    queryKey: ['users', search, page],
    placeholderData: keepPreviousData,
    queryFn: () => listUsers(session, page, PER_PAGE, search),
  })
  const create = useMutation({
    mutationFn: async () => {
      const r =
        dialog === 'invite'
          ? await supabase.auth.admin.inviteUserByEmail(form.email)
          : await supabase.auth.admin.createUser({
              email: form.email,
              password: form.password || undefined,
              email_confirm: form.confirm,
            })
      if (r.error) throw r.error
    },
    onSuccess: () => {
      setDialog(null)
      setForm({ email: '', password: '', confirm: true })
      qc.invalidateQueries({ queryKey: ['users'] })
    },
  })
  const total = users.data?.total ?? 0
  return (
    <div>
      <PageHeader title="Authentication">
        <Button onClick={() => setDialog('create')}>
          <Plus /> Add user
        </Button>
        <Button variant="outline" onClick={() => setDialog('invite')}>
          <Send /> Invite user
        </Button>
      </PageHeader>
      <AuthNav />
      <div className="space-y-3 p-4">
        <Input
          type="search"
          aria-label="Search users"
          placeholder="Search by e-mail or name"
          value={search}
          onChange={(e) => {
            setSearch(e.target.value)
            setPage(1)
          }}
          className="w-80"
        />
        <ErrorNote error={users.error} />
        <div className="overflow-auto rounded-md border border-border bg-panel">
          <table className="w-full text-left text-xs">
            <caption className="sr-only">Users</caption>
            <thead className="bg-muted">
              <tr>
                {['User', 'Providers', 'Created', 'Last sign-in', 'ID'].map((h) => (
                  <th key={h} scope="col" className="px-3 py-2 font-semibold">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {users.data?.users.map((u) => (
                <tr key={u.id} className="border-t border-border hover:bg-muted/50">
                  <td className="px-3 py-2">
                    <Link
                      to={`/auth/users/${u.id}`}
                      className="font-medium text-primary underline-offset-2 hover:underline"
                    >
                      {u.email || u.phone || u.id}
                    </Link>
                    {u.is_anonymous ? <Badge>anonymous</Badge> : null}
                    {!u.email_confirmed_at && !u.phone_confirmed_at && !u.is_anonymous ? (
                      <>
                        {' '}
                        <Badge tone="warn">unconfirmed</Badge>
                      </>
                    ) : null}
                    {u.banned_until ? (
                      <>
                        {' '}
                        <Badge tone="bad">banned</Badge>
                      </>
                    ) : null}
                  </td>
                  <td className="px-3 py-2">
                    {((u.app_metadata.providers as string[] | undefined) ?? []).join(', ')}
                  </td>
                  <td className="px-3 py-2">{when(u.created_at)}</td>
                  <td className="px-3 py-2">{when(u.last_sign_in_at)}</td>
                  <td className="px-3 py-2 font-mono text-muted-foreground">{u.id}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {users.data?.users.length === 0 ? (
            <p className="p-4 text-muted-foreground">
              {search
                ? `No users match “${search}”: the search looks at e-mail addresses and names.`
                : 'No users yet. Add user makes one with a password, Invite user sends an invitation (see Messages); sign-ups through the API appear here too.'}
            </p>
          ) : null}
        </div>
        <footer className="flex items-center gap-3 text-xs text-muted-foreground">
          <span>
            {total} {total === 1 ? 'user' : 'users'}
          </span>
          <Button
            size="sm"
            variant="outline"
            disabled={page === 1}
            onClick={() => setPage(page - 1)}
          >
            Previous
          </Button>
          <Button
            size="sm"
            variant="outline"
            disabled={page * PER_PAGE >= total}
            onClick={() => setPage(page + 1)}
          >
            Next
          </Button>
        </footer>
      </div>
      <Dialog
        open={dialog !== null}
        onOpenChange={(o) => !o && setDialog(null)}
        title={dialog === 'invite' ? 'Invite a user' : 'Add a user'}
        description={
          dialog === 'invite'
            ? 'An invitation is mailed (caught locally: see Mail and text messages).'
            : 'Signs in with this e-mail and password.'
        }
      >
        <form
          className="flex flex-col gap-3"
          onSubmit={(e) => {
            e.preventDefault()
            create.mutate()
          }}
        >
          <Field label="E-mail">
            <Input
              type="email"
              required
              value={form.email}
              onChange={(e) => setForm({ ...form, email: e.target.value })}
            />
          </Field>
          {dialog === 'create' ? (
            <>
              <Field label="Password">
                <Input
                  type="password"
                  autoComplete="new-password"
                  value={form.password}
                  onChange={(e) => setForm({ ...form, password: e.target.value })}
                />
              </Field>
              <label className="flex items-center gap-2">
                <input
                  type="checkbox"
                  checked={form.confirm}
                  onChange={(e) => setForm({ ...form, confirm: e.target.checked })}
                />{' '}
                Confirm the e-mail address now
              </label>
            </>
          ) : null}
          <ErrorNote error={create.error} />
          <div className="flex justify-end gap-2">
            <Button variant="outline" onClick={() => setDialog(null)}>
              Cancel
            </Button>
            <Button type="submit" disabled={create.isPending}>
              {dialog === 'invite' ? 'Send invitation' : 'Create user'}
            </Button>
          </div>
        </form>
      </Dialog>
    </div>
  )
}
