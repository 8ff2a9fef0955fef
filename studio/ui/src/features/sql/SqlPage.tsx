import { useEffect, useMemo, useRef, useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Download, Play, Plus, Save, Trash2, WandSparkles, X } from 'lucide-react'
import { api, ApiError } from '@/lib/api'
import { useSession } from '@/lib/session'
import { listUsers } from '@/features/auth/users'
import { Button } from '@/components/ui/button'
import { Field, Input, Select } from '@/components/ui/input'
import { ErrorNote } from '@/components/ErrorNote'
import { ValueTable } from '@/components/ValueTable'
import { PageHeader } from '@/components/Layout'
import { cn } from '@/lib/cn'
import { SqlEditor, type EditorApi, type Marked } from './SqlEditor'
import {
  errorSpan,
  namespace,
  offsetOf,
  toCsv,
  toJson,
  type CatalogColumn,
  type CatalogFunction,
  type CatalogTable,
} from './completion'
import { comboLabel, isMac, matches, SQL_KEYS } from '@/lib/shortcuts'
import { closeTab, loadTabs, MAX_TABS, newTab, storeTabs, type QueryTab } from './tabs'

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

const mac = typeof navigator !== 'undefined' && isMac(navigator.platform)

const ROLES = ['postgres', 'anon', 'authenticated', 'service_role']

/** Offers text as a file to save. */
function download(name: string, type: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const a = document.createElement('a')
  a.href = url
  a.download = name
  a.click()
  setTimeout(() => URL.revokeObjectURL(url), 1000)
}

export default function SqlPage() {
  const { session } = useSession()
  const qc = useQueryClient()
  const [tabs, setTabs] = useState<QueryTab[]>(loadTabs)
  const [active, setActive] = useState(() => tabs[0].id)
  const tab = tabs.find((t) => t.id === active) ?? tabs[0]
  const sql = tab.sql
  const setSql = (text: string) =>
    setTabs((ts) => ts.map((t) => (t.id === tab.id ? { ...t, sql: text } : t)))
  useEffect(() => storeTabs(tabs), [tabs])
  const editor = useRef<EditorApi | null>(null)
  const [marked, setMarked] = useState<Marked | null>(null)
  const catalog = useQuery({
    queryKey: ['sql-catalog'],
    queryFn: async () => {
      const [schemas, tables, columns, functions] = await Promise.all([
        api<{ name: string }[]>('/database/schemas'),
        api<CatalogTable[]>('/database/tables'),
        api<CatalogColumn[]>('/database/columns'),
        api<CatalogFunction[]>('/database/functions'),
      ])
      return {
        schema: namespace(
          schemas.map((s) => s.name),
          tables,
          columns,
        ),
        functions,
      }
    },
  })
  const schema = useMemo(() => catalog.data?.schema ?? {}, [catalog.data])
  const functions = useMemo(() => catalog.data?.functions ?? [], [catalog.data])
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
    mutationFn: ({ text, rollback }: { text: string; rollback?: boolean; from?: number }) =>
      api<Answer>('/sql', {
        method: 'POST',
        json: {
          query: text,
          role: role === 'postgres' ? null : role,
          user_id: role === 'authenticated' && userId ? userId : null,
          rollback: rollback ?? false,
        },
      }),
    onError: (e, { text, from }) => {
      // PostgreSQL's position is in the text sent: the selection's start puts it in the editor.
      if (e instanceof ApiError && e.line && e.column && from !== undefined) {
        const at = offsetOf(text, e.line, e.column)
        const span = errorSpan(text, at)
        setMarked({ from: from + span.from, to: from + span.to, message: e.message })
      }
    },
    onMutate: ({ text }) => {
      setMarked(null)
      const next = [text, ...past.filter((p) => p !== text)].slice(0, HISTORY_LENGTH)
      setPast(next)
      localStorage.setItem(HISTORY_KEY, JSON.stringify(next))
    },
  })
  const save = useMutation({
    mutationFn: () =>
      api(`/snippets/${encodeURIComponent(name.trim())}`, { method: 'PUT', json: { sql } }),
    onSuccess: () => {
      setTabs((ts) => ts.map((t) => (t.id === tab.id ? { ...t, name: name.trim() } : t)))
      qc.invalidateQueries({ queryKey: ['snippets'] })
    },
  })
  const remove = useMutation({
    mutationFn: (n: string) => api(`/snippets/${encodeURIComponent(n)}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['snippets'] }),
  })
  const open = async (n: string) => {
    const s = await api<{ name: string; sql: string }>(`/snippets/${encodeURIComponent(n)}`)
    const there = tabs.find((t) => t.name === s.name)
    if (there) {
      setTabs((ts) => ts.map((t) => (t.id === there.id ? { ...t, sql: s.sql } : t)))
      setActive(there.id)
    } else if (tabs.length < MAX_TABS) {
      const t = newTab(tabs, s.name, s.sql)
      setTabs([...tabs, t])
      setActive(t.id)
    } else setSql(s.sql)
    setName(s.name)
    setMarked(null)
  }
  const runNow = (prefix = '', rollback = false) => {
    const r = editor.current?.runnable() ?? { text: sql, from: 0, selection: false }
    if (!prefix) return run.mutate({ text: r.text, from: r.from })
    run.mutate({ text: `${prefix} ${r.text.trim().replace(/;+$/, '')}`, rollback })
  }
  const addTab = () => {
    if (tabs.length >= MAX_TABS) return
    const t = newTab(tabs)
    setTabs([...tabs, t])
    setActive(t.id)
    setMarked(null)
  }
  const [selection, setSelection] = useState(false)
  const [formatNote, setFormatNote] = useState<string | null>(null)
  const nameField = useRef<HTMLInputElement>(null)
  const formatNow = async () => {
    // The formatter is fetched the first time it is used (it is most of the editor's weight).
    const { formatSql } = await import('./format')
    const r = formatSql(sql)
    if (!r.ok) return setFormatNote(r.message)
    setFormatNote(null)
    if (r.text !== sql) {
      setSql(r.text)
      setMarked(null)
    }
  }
  const saveNow = () => {
    if (name.trim()) save.mutate()
    else nameField.current?.focus()
  }
  // The SQL editor's combinations, from the editor or anywhere on the page.
  const keys = useRef({ formatNow, saveNow, addTab, runNow })
  keys.current = { formatNow, saveNow, addTab, runNow }
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return
      const k = keys.current
      const action = matches(e, SQL_KEYS.format, mac)
        ? k.formatNow
        : matches(e, SQL_KEYS.save, mac)
          ? k.saveNow
          : matches(e, SQL_KEYS.newTab, mac)
            ? k.addTab
            : matches(e, SQL_KEYS.run, mac)
              ? () => k.runNow()
              : null
      if (!action) return
      e.preventDefault()
      action()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])
  const answer = run.data
  const shown = answer ? [...answer.results].reverse().find((r) => r.columns.length > 0) : undefined
  const last = answer?.results[answer.results.length - 1]

  return (
    <div className="flex h-full">
      <aside className="w-60 shrink-0 overflow-auto border-r border-border bg-panel p-3">
        <h2 className="text-xs font-semibold uppercase tracking-wide text-muted-foreground">
          Snippets
        </h2>
        <p className="mt-1 text-xs text-muted-foreground">Saved in supabase/snippets/</p>
        <ul className="mt-2 space-y-0.5" aria-label="Snippets">
          {snippets.data?.map((s) => (
            <li key={s.name} className="group flex items-center">
              <button
                type="button"
                className="min-w-0 flex-1 truncate rounded px-1.5 py-1 text-left hover:bg-muted"
                onClick={() => open(s.name)}
              >
                {s.name}
              </button>
              <Button
                variant="ghost"
                size="icon"
                aria-label={`Delete snippet ${s.name}`}
                onClick={() => remove.mutate(s.name)}
              >
                <Trash2 />
              </Button>
            </li>
          ))}
          {snippets.data?.length === 0 ? (
            <li className="text-xs text-muted-foreground">
              None yet: name the query below and Save snippet.
            </li>
          ) : null}
        </ul>
        <h2 className="mt-5 text-xs font-semibold uppercase tracking-wide text-muted-foreground">
          History
        </h2>
        <ul className="mt-2 space-y-0.5" aria-label="History">
          {past.map((p, i) => (
            <li key={i}>
              <button
                type="button"
                className="w-full truncate rounded px-1.5 py-1 text-left font-mono text-xs hover:bg-muted"
                title={p}
                onClick={() => setSql(p)}
              >
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
              <Select
                aria-label="As user"
                value={userId}
                onChange={(e) => setUserId(e.target.value)}
              >
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
          <ul aria-label="Query tabs" className="flex flex-wrap items-center gap-1">
            {tabs.map((t) => (
              <li
                key={t.id}
                className={cn(
                  'flex items-center rounded-md border border-border',
                  t.id === tab.id ? 'bg-panel font-medium' : 'bg-muted',
                )}
              >
                <button
                  type="button"
                  aria-current={t.id === tab.id ? 'true' : undefined}
                  className="max-w-48 truncate px-2.5 py-1"
                  onClick={() => {
                    setActive(t.id)
                    setMarked(null)
                  }}
                >
                  {t.name}
                </button>
                {tabs.length > 1 ? (
                  <button
                    type="button"
                    aria-label={`Close ${t.name}`}
                    className="rounded p-1 hover:bg-muted"
                    onClick={() => {
                      const next = closeTab(tabs, t.id, tab.id)
                      setTabs(next.tabs)
                      setActive(next.active)
                    }}
                  >
                    <X className="size-3" />
                  </button>
                ) : null}
              </li>
            ))}
            <li>
              <Button
                variant="ghost"
                size="icon"
                aria-label="New query tab"
                title={`New query tab (${comboLabel(SQL_KEYS.newTab, mac)})`}
                onClick={addTab}
                disabled={tabs.length >= MAX_TABS}
              >
                <Plus />
              </Button>
            </li>
          </ul>
          <SqlEditor
            key={tab.id}
            value={sql}
            onChange={setSql}
            onRun={() => runNow()}
            onSelect={setSelection}
            schema={schema}
            functions={functions}
            marked={marked}
            api={editor}
          />
          <div className="flex flex-wrap items-center gap-2">
            <Button onClick={() => runNow()} disabled={run.isPending}>
              <Play /> {selection ? 'Run selection' : 'Run'}{' '}
              <kbd className="text-xs">{comboLabel(SQL_KEYS.run, mac)}</kbd>
            </Button>
            <Button
              variant="outline"
              onClick={formatNow}
              title={`Format the SQL (${comboLabel(SQL_KEYS.format, mac)})`}
            >
              <WandSparkles /> Format
            </Button>
            <Button variant="outline" onClick={() => runNow('explain')} disabled={run.isPending}>
              Explain
            </Button>
            <Button
              variant="outline"
              onClick={() => runNow('explain analyze', true)}
              disabled={run.isPending}
              title="Runs the statement and rolls it back"
            >
              Explain analyze
            </Button>
            <span className="ml-auto flex items-center gap-2">
              <Input
                ref={nameField}
                aria-label="Snippet name"
                placeholder="Snippet name"
                value={name}
                onChange={(e) => setName(e.target.value)}
                className="w-48"
              />
              <Button
                variant="outline"
                onClick={() => save.mutate()}
                disabled={!name.trim() || save.isPending}
                title={`Save as a snippet (${comboLabel(SQL_KEYS.save, mac)})`}
              >
                <Save /> Save snippet
              </Button>
            </span>
          </div>
          {formatNote ? (
            <p
              role="status"
              className="rounded-md border border-red-200 bg-red-50 p-2 text-sm text-red-900"
            >
              {formatNote}
            </p>
          ) : null}
          <ErrorNote error={save.error ?? remove.error} />
        </div>
        <section aria-label="Results" className="min-h-0 flex-1 overflow-auto px-4 pb-4">
          <ErrorNote error={run.error} />
          {answer ? (
            <p className="mb-2 text-xs text-muted-foreground" aria-live="polite">
              {answer.statements} {answer.statements === 1 ? 'statement' : 'statements'} as{' '}
              <strong>{answer.role}</strong>
              {answer.claims?.sub ? ` (user ${String(answer.claims.sub)})` : ''} in{' '}
              {answer.ms.toFixed(1)} ms
              {shown
                ? ` · ${shown.row_count} ${shown.row_count === 1 ? 'row' : 'rows'}${shown.truncated ? ` (first ${shown.rows.length} shown)` : ''}`
                : ''}
              {!shown && last ? ` · ${last.row_count} rows affected` : ''}
            </p>
          ) : null}
          {shown ? (
            <div className="mb-2 flex gap-2">
              <Button
                variant="outline"
                size="sm"
                onClick={() =>
                  download(`${tab.name}.csv`, 'text/csv', toCsv(shown.columns, shown.rows))
                }
              >
                <Download /> CSV
              </Button>
              <Button
                variant="outline"
                size="sm"
                onClick={() =>
                  download(
                    `${tab.name}.json`,
                    'application/json',
                    toJson(shown.columns, shown.rows),
                  )
                }
              >
                <Download /> JSON
              </Button>
            </div>
          ) : null}
          {shown ? (
            <ValueTable
              caption="Result"
              columns={shown.columns}
              rows={shown.rows.map((r) =>
                Object.fromEntries(shown.columns.map((c, i) => [c, r[i]])),
              )}
              empty="The query returned no rows."
            />
          ) : null}
        </section>
      </div>
    </div>
  )
}
