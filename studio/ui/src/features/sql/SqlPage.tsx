import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Play, Save, Trash2 } from 'lucide-react'
import { api } from '@/lib/api'
import { useSession } from '@/lib/session'
import { listUsers } from '@/features/auth/users'
import { Button } from '@/components/ui/button'
import { Field, Input, Select } from '@/components/ui/input'
import { ErrorNote } from '@/components/ErrorNote'
import { ValueTable } from '@/components/ValueTable'
import { PageHeader } from '@/components/Layout'

interface ResultSet {
  columns: string[]
  rows: (string | null)[][]
  row_count: number
  truncated: boolean
}

interface Answer {
  results: ResultSet[]
  statements: number
  ms: number
  role: string
  claims: Record<string, unknown> | null
}

interface Snippet {
  name: string
  bytes: number
  modified: number
}

const HISTORY_KEY = 'studio.sql.history'
const HISTORY_LENGTH = 50

function history(): string[] {
  try {
    const h = JSON.parse(localStorage.getItem(HISTORY_KEY) ?? '[]')
    return Array.isArray(h) ? h.filter((x) => typeof x === 'string') : []
  } catch {
    return []
  }
}

const ROLES = ['postgres', 'anon', 'authenticated', 'service_role']

export default function SqlPage() {
  const { session } = useSession()
  const qc = useQueryClient()
  const [sql, setSql] = useState('select now();')
  const [role, setRole] = useState('postgres')
  const [userId, setUserId] = useState('')
  const [name, setName] = useState('')
  const [past, setPast] = useState<string[]>(history)
  const users = useQuery({
    queryKey: ['sql-users'],
    enabled: role === 'authenticated',
    queryFn: async () => (await listUsers(session, 1, 200)).users,
  })
  const snippets = useQuery({ queryKey: ['snippets'], queryFn: () => api<Snippet[]>('/snippets') })
  const run = useMutation({
    mutationFn: ({ text, rollback }: { text: string; rollback?: boolean }) =>
      api<Answer>('/sql', {
        method: 'POST',
        json: {
          query: text,
          role: role === 'postgres' ? null : role,
          user_id: role === 'authenticated' && userId ? userId : null,
          rollback: rollback ?? false,
        },
      }),
    onMutate: ({ text }) => {
      const next = [text, ...past.filter((p) => p !== text)].slice(0, HISTORY_LENGTH)
      setPast(next)
      localStorage.setItem(HISTORY_KEY, JSON.stringify(next))
    },
  })
  const save = useMutation({
    mutationFn: () => api(`/snippets/${encodeURIComponent(name.trim())}`, { method: 'PUT', json: { sql } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['snippets'] }),
  })
  const remove = useMutation({
    mutationFn: (n: string) => api(`/snippets/${encodeURIComponent(n)}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['snippets'] }),
  })
  const open = async (n: string) => {
    const s = await api<{ name: string; sql: string }>(`/snippets/${encodeURIComponent(n)}`)
    setSql(s.sql)
    setName(s.name)
  }
  const answer = run.data
  const shown = answer ? [...answer.results].reverse().find((r) => r.columns.length > 0) : undefined
  const last = answer?.results[answer.results.length - 1]

  return (
    <div className="flex h-full">
      <aside className="w-60 shrink-0 overflow-auto border-r border-border bg-panel p-3">
        <h2 className="text-xs font-semibold uppercase tracking-wide text-muted-foreground">Snippets</h2>
        <p className="mt-1 text-xs text-muted-foreground">Saved in supabase/snippets/</p>
        <ul className="mt-2 space-y-0.5">
          {snippets.data?.map((s) => (
            <li key={s.name} className="group flex items-center">
              <button type="button" className="min-w-0 flex-1 truncate rounded px-1.5 py-1 text-left hover:bg-muted" onClick={() => open(s.name)}>
                {s.name}
              </button>
              <Button variant="ghost" size="icon" aria-label={`Delete snippet ${s.name}`} onClick={() => remove.mutate(s.name)}>
                <Trash2 />
              </Button>
            </li>
          ))}
          {snippets.data?.length === 0 ? <li className="text-xs text-muted-foreground">None yet.</li> : null}
        </ul>
        <h2 className="mt-5 text-xs font-semibold uppercase tracking-wide text-muted-foreground">History</h2>
        <ul className="mt-2 space-y-0.5" aria-label="History">
          {past.map((p, i) => (
            <li key={i}>
              <button type="button" className="w-full truncate rounded px-1.5 py-1 text-left font-mono text-xs hover:bg-muted" title={p} onClick={() => setSql(p)}>
                {p}
              </button>
            </li>
          ))}
        </ul>
      </aside>
      <div className="flex min-w-0 flex-1 flex-col">
        <PageHeader title="SQL editor">
          <Field label="Role">
            <Select aria-label="Role" value={role} onChange={(e) => setRole(e.target.value)}>
              {ROLES.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </Select>
          </Field>
          {role === 'authenticated' ? (
            <Field label="As user">
              <Select aria-label="As user" value={userId} onChange={(e) => setUserId(e.target.value)}>
                <option value="">(no user: auth.uid() is null)</option>
                {users.data?.map((u) => (
                  <option key={u.id} value={u.id}>
                    {u.email ?? u.phone ?? u.id}
                  </option>
                ))}
              </Select>
            </Field>
          ) : null}
        </PageHeader>
        <div className="flex flex-col gap-2 p-4">
          <label htmlFor="sql-text" className="sr-only">SQL</label>
          <textarea
            id="sql-text"
            spellCheck={false}
            value={sql}
            onChange={(e) => setSql(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault()
                run.mutate({ text: sql })
              }
            }}
            className="h-56 resize-y rounded-md border border-border bg-slate-950 p-3 font-mono text-sm text-emerald-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
          />
          <div className="flex flex-wrap items-center gap-2">
            <Button onClick={() => run.mutate({ text: sql })} disabled={run.isPending}>
              <Play /> Run <kbd className="text-xs opacity-80">Ctrl+Enter</kbd>
            </Button>
            <Button variant="outline" onClick={() => run.mutate({ text: `explain ${sql.trim().replace(/;+$/, '')}` })} disabled={run.isPending}>
              Explain
            </Button>
            <Button variant="outline" onClick={() => run.mutate({ text: `explain analyze ${sql.trim().replace(/;+$/, '')}`, rollback: true })} disabled={run.isPending} title="Runs the statement and rolls it back">
              Explain analyze
            </Button>
            <span className="ml-auto flex items-center gap-2">
              <Input aria-label="Snippet name" placeholder="Snippet name" value={name} onChange={(e) => setName(e.target.value)} className="w-48" />
              <Button variant="outline" onClick={() => save.mutate()} disabled={!name.trim() || save.isPending}>
                <Save /> Save snippet
              </Button>
            </span>
          </div>
          <ErrorNote error={save.error ?? remove.error} />
        </div>
        <section aria-label="Results" className="min-h-0 flex-1 overflow-auto px-4 pb-4">
          <ErrorNote error={run.error} />
          {answer ? (
            <p className="mb-2 text-xs text-muted-foreground" aria-live="polite">
              {answer.statements} {answer.statements === 1 ? 'statement' : 'statements'} as <strong>{answer.role}</strong>
              {answer.claims?.sub ? ` (user ${String(answer.claims.sub)})` : ''} in {answer.ms.toFixed(1)} ms
              {shown ? ` · ${shown.row_count} ${shown.row_count === 1 ? 'row' : 'rows'}${shown.truncated ? ` (first ${shown.rows.length} shown)` : ''}` : ''}
              {!shown && last ? ` · ${last.row_count} rows affected` : ''}
            </p>
          ) : null}
          {shown ? (
            <ValueTable
              caption="Result"
              columns={shown.columns}
              rows={shown.rows.map((r) => Object.fromEntries(shown.columns.map((c, i) => [c, r[i]])))}
              empty="The query returned no rows."
            />
          ) : null}
        </section>
      </div>
    </div>
  )
}
