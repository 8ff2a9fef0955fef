import { useEffect, useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { useSession } from '@/lib/session'
import { api, errorText } from '@/lib/api'
import { Field, Input, Select } from '@/components/ui/input'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { ErrorNote } from '@/components/ErrorNote'
import { PageHeader } from '@/components/Layout'
import {
  NO_FILTERS,
  SERVICES,
  emptyNote,
  errorOf,
  filtered,
  listPath,
  matches,
  merge,
  statusProblem,
  tone,
  type RequestFilters,
  type RequestSummary,
} from './filters'

interface LogLine {
  seq: number
  at: string
  function: string
  stream: string
  line: string
}

const KEPT = 500

export default function LogsPage() {
  const { session } = useSession()
  return (
    <div>
      <PageHeader title="Logs" />
      <Tabs defaultValue="requests" className="px-4 pt-2">
        <TabsList label="Logs">
          <TabsTrigger value="requests">API requests</TabsTrigger>
          <TabsTrigger value="functions">Edge Functions</TabsTrigger>
          <TabsTrigger value="postgres">PostgreSQL</TabsTrigger>
        </TabsList>
        <TabsContent value="requests" className="py-3">
          <Requests />
        </TabsContent>
        <TabsContent value="functions" className="py-3">
          {session.functions.length ? (
            <FunctionLogs functions={session.functions} />
          ) : (
            <p className="text-muted-foreground">
              This project has no Edge Functions (supabase/functions).
            </p>
          )}
        </TabsContent>
        <TabsContent value="postgres" className="py-3">
          <PostgresLog />
        </TabsContent>
      </Tabs>
    </div>
  )
}

interface Listing {
  per_service: number
  kept: Record<string, number>
  requests: RequestSummary[]
}

/** The requests the gateway kept (the last ones of each service) and those arriving live,
 * searched by status, path, role, user and service; one opened in full beside them. */
function Requests() {
  const { session } = useSession()
  const [filters, setFilters] = useState<RequestFilters>(NO_FILTERS)
  const [live, setLive] = useState<RequestSummary[]>([])
  const [older, setOlder] = useState<RequestSummary[]>([])
  const [olderError, setOlderError] = useState<unknown>(null)
  const [state, setState] = useState('connecting')
  const [open, setOpen] = useState<number | null>(null)
  const problem = statusProblem(filters.status)
  const list = useQuery({
    queryKey: ['requests', filters],
    queryFn: () => api<Listing>(listPath(filters)),
    enabled: problem === null,
  })
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new search starts from its listing
  useEffect(() => {
    setLive([])
    setOlder([])
    setOlderError(null)
  }, [filters])
  useEffect(() => {
    // Requests made from now on, as the gateway answers them (kept by the filters below).
    const source = new EventSource('/api/requests')
    source.onopen = () => setState('following')
    source.onerror = () => setState('reconnecting')
    source.onmessage = (m) => {
      const e = JSON.parse(m.data) as RequestSummary
      setLive((l) => merge(l, [e]))
    }
    return () => source.close()
  }, [])
  const shown = merge(
    [...(list.data?.requests ?? []), ...older],
    live.filter((e) => matches(filters, e)),
  )
  const set = (key: keyof RequestFilters) => (e: { target: { value: string } }) =>
    setFilters((f) => ({ ...f, [key]: e.target.value }))
  const loadOlder = async () => {
    const last = shown[shown.length - 1]
    if (!last) return
    try {
      const got = await api<Listing>(listPath(filters, last.seq))
      setOlder((o) => [...o, ...got.requests])
      setOlderError(null)
    } catch (e) {
      setOlderError(e)
    }
  }
  return (
    <div className="flex gap-3">
      <div className="min-w-0 flex-1 space-y-2">
        <search aria-label="Request filters">
          <div className="flex flex-wrap items-end gap-2">
            <Field label="Status">
              <Input
                aria-label="Status"
                aria-invalid={problem !== null}
                placeholder="4xx, 404, error"
                value={filters.status}
                onChange={set('status')}
                className="w-28"
              />
            </Field>
            <Field label="Path">
              <Input
                type="search"
                aria-label="Path"
                placeholder="/rest/v1/todos"
                value={filters.path}
                onChange={set('path')}
                className="w-56"
              />
            </Field>
            <Field label="Role">
              <Select aria-label="Role" value={filters.role} onChange={set('role')}>
                <option value="">any</option>
                <option>anon</option>
                <option>authenticated</option>
                <option>service_role</option>
              </Select>
            </Field>
            <Field label="User">
              <Input
                aria-label="User"
                placeholder="user id (sub)"
                value={filters.user}
                onChange={set('user')}
                className="w-44"
              />
            </Field>
            <Field label="Service">
              <Select aria-label="Service" value={filters.service} onChange={set('service')}>
                <option value="">all</option>
                {SERVICES.map((s) => (
                  <option key={s}>{s}</option>
                ))}
              </Select>
            </Field>
            <Button variant="outline" onClick={() => setFilters(NO_FILTERS)}>
              Clear
            </Button>
          </div>
        </search>
        {problem ? (
          <p role="alert" className="text-red-800">
            Status: {problem}.
          </p>
        ) : null}
        <ErrorNote error={list.error} />
        <p role="status" className="text-xs text-muted-foreground">
          {state === 'following'
            ? `Following requests as they come (newest first); the last ${list.data?.per_service ?? '…'} of each service are kept.`
            : `Inspector: ${state}…`}
        </p>
        <div className="overflow-auto rounded-md border border-border bg-panel">
          <table className="w-full text-left text-xs">
            <caption className="sr-only">API requests</caption>
            <thead className="bg-muted">
              <tr>
                {['Time', 'Request', 'Status', 'ms', 'Service', 'Role', 'Request id'].map((h) => (
                  <th key={h} scope="col" className="px-2 py-1.5 font-semibold">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {shown.map((e) => (
                <tr
                  key={e.seq}
                  className={`border-t border-border align-top ${open === e.seq ? 'bg-muted' : ''}`}
                >
                  <td className="whitespace-nowrap px-2 py-1">{e.at.slice(11, 23)}</td>
                  <td className="px-2 py-1 font-mono">
                    <button
                      type="button"
                      className="cursor-pointer break-all text-left hover:underline"
                      aria-pressed={open === e.seq}
                      onClick={() => setOpen(e.seq)}
                    >
                      {e.method} {e.path}
                    </button>
                    {errorOf(e) ? <span className="block text-red-800">{errorOf(e)}</span> : null}
                  </td>
                  <td className="px-2 py-1">
                    <Badge tone={tone(e.status)}>{e.status}</Badge>
                  </td>
                  <td className="px-2 py-1">{e.ms}</td>
                  <td className="px-2 py-1">{e.service ?? '—'}</td>
                  <td className="px-2 py-1">{e.role ?? '—'}</td>
                  <td className="px-2 py-1 font-mono text-muted-foreground">{e.id}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {shown.length === 0 ? (
            <div className="flex flex-wrap items-center gap-2 p-3 text-muted-foreground">
              <p>
                {list.isLoading
                  ? 'Loading…'
                  : emptyNote(filters, list.data?.per_service, session.api_url)}
              </p>
              {!list.isLoading && filtered(filters) ? (
                <Button variant="outline" size="sm" onClick={() => setFilters(NO_FILTERS)}>
                  Clear filters
                </Button>
              ) : null}
            </div>
          ) : null}
        </div>
        {shown.length >= 100 ? (
          <Button variant="outline" size="sm" onClick={loadOlder}>
            Older requests
          </Button>
        ) : null}
        <ErrorNote error={olderError} />
      </div>
      {open !== null ? <RequestDetail seq={open} onClose={() => setOpen(null)} /> : null}
    </div>
  )
}

interface Detail extends RequestSummary {
  branch?: string | null
  headers?: Record<string, string>
  sql?: string
  params?: string[]
  claims?: Record<string, unknown> | null
  rows?: number | null
  rls?: {
    table: string
    enabled: boolean
    policies: { name: string; command: string; roles: string[]; applies: boolean }[]
    visible?: number | null
    without_rls?: number | null
    denied?: string | null
  } | null
  truncated?: string[]
}

/** One request in full: its headers (secrets blanked), SQL, claims, RLS outcome and timing. */
function RequestDetail({ seq, onClose }: { seq: number; onClose: () => void }) {
  const q = useQuery({
    queryKey: ['request', seq],
    queryFn: () => api<Detail>(`/logs/requests/${seq}`),
  })
  const d = q.data
  return (
    <section
      aria-labelledby="request-detail"
      className="w-[28rem] shrink-0 space-y-3 overflow-auto rounded-md border border-border bg-panel p-3 text-xs"
    >
      <div className="flex items-center justify-between">
        <h2 id="request-detail" className="text-sm font-semibold">
          Request detail
        </h2>
        <Button variant="ghost" size="sm" onClick={onClose}>
          Close
        </Button>
      </div>
      <ErrorNote error={q.error} />
      {d ? (
        <>
          <p className="break-all font-mono">
            {d.method} {d.path}
          </p>
          <dl className="grid grid-cols-[7rem_1fr] gap-x-2 gap-y-1">
            <dt className="text-muted-foreground">Status</dt>
            <dd>
              <Badge tone={tone(d.status)}>{d.status}</Badge>
            </dd>
            <dt className="text-muted-foreground">Time</dt>
            <dd>
              {d.at} · {d.ms} ms
            </dd>
            <dt className="text-muted-foreground">Service</dt>
            <dd>{d.service ?? '—'}</dd>
            <dt className="text-muted-foreground">Role</dt>
            <dd>{d.role ?? '—'}</dd>
            <dt className="text-muted-foreground">User</dt>
            <dd className="font-mono">{d.sub ?? '—'}</dd>
            <dt className="text-muted-foreground">Request id</dt>
            <dd className="font-mono">{d.id}</dd>
            {d.branch ? (
              <>
                <dt className="text-muted-foreground">Branch</dt>
                <dd>{d.branch}</dd>
              </>
            ) : null}
            {d.rows !== undefined && d.rows !== null ? (
              <>
                <dt className="text-muted-foreground">Rows</dt>
                <dd>{d.rows}</dd>
              </>
            ) : null}
          </dl>
          {errorOf(d) ? (
            <p role="alert" className="text-red-800">
              {errorOf(d)}
            </p>
          ) : null}
          {d.sql ? (
            <div>
              <h3 className="font-semibold">SQL</h3>
              <pre
                // biome-ignore lint/a11y/noNoninteractiveTabindex: a long statement scrolls, by keyboard too
                tabIndex={0}
                className="max-h-48 overflow-auto whitespace-pre-wrap rounded bg-muted p-2 font-mono"
              >
                {d.sql}
              </pre>
              {d.params?.length ? (
                <ol className="mt-1 list-inside list-decimal font-mono">
                  {d.params.map((p, i) => (
                    <li key={i} className="break-all">
                      {p}
                    </li>
                  ))}
                </ol>
              ) : null}
            </div>
          ) : null}
          {d.sql ? (
            <div>
              <h3 className="font-semibold">Row level security</h3>
              {d.rls ? (
                <div className="space-y-1">
                  <p>
                    {d.rls.table}: RLS {d.rls.enabled ? 'on' : 'off'}
                    {d.rls.visible !== undefined && d.rls.visible !== null
                      ? ` · ${d.rls.visible} rows seen of ${d.rls.without_rls ?? '?'} without RLS`
                      : ''}
                  </p>
                  {d.rls.denied ? <p className="text-red-800">{d.rls.denied}</p> : null}
                  <ul>
                    {d.rls.policies.map((p) => (
                      <li key={p.name}>
                        {p.applies ? '✓' : '·'} {p.name} ({p.command} to {p.roles.join(', ')})
                      </li>
                    ))}
                  </ul>
                </div>
              ) : (
                <p className="text-muted-foreground">
                  Not measured: what RLS did is found for requests made while this page (or{' '}
                  <code>supagate logs --follow</code>) is open.
                </p>
              )}
            </div>
          ) : null}
          {d.claims ? (
            <div>
              <h3 className="font-semibold">Claims</h3>
              <pre
                // biome-ignore lint/a11y/noNoninteractiveTabindex: long claims scroll, by keyboard too
                tabIndex={0}
                className="max-h-40 overflow-auto rounded bg-muted p-2 font-mono"
              >
                {JSON.stringify(d.claims, null, 2)}
              </pre>
            </div>
          ) : null}
          {d.headers ? (
            <div>
              <h3 className="font-semibold">Headers</h3>
              <table className="w-full text-left">
                <caption className="sr-only">Request headers</caption>
                <tbody>
                  {Object.entries(d.headers).map(([k, v]) => (
                    <tr key={k} className="border-t border-border align-top">
                      <th
                        scope="row"
                        className="py-0.5 pr-2 font-mono font-normal text-muted-foreground"
                      >
                        {k}
                      </th>
                      <td className="break-all py-0.5 font-mono">{v}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
          {d.truncated?.length ? (
            <p className="text-muted-foreground">Left out (too large): {d.truncated.join(', ')}.</p>
          ) : null}
        </>
      ) : null}
    </section>
  )
}

/** The last lines the embedded PostgreSQL wrote to its log. */
function PostgresLog() {
  const q = useQuery({
    queryKey: ['postgres-log'],
    queryFn: () =>
      api<{ available: boolean; reason?: string; lines: string[] }>('/logs/postgres?lines=300'),
    refetchInterval: 3000,
  })
  return (
    <div className="space-y-2">
      <ErrorNote error={q.error} />
      {q.data && !q.data.available ? (
        <p className="text-muted-foreground">{q.data.reason}</p>
      ) : null}
      <pre
        role="log"
        aria-label="PostgreSQL log"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the log scrolls, by keyboard too
        tabIndex={0}
        className="max-h-[60vh] overflow-auto rounded-md bg-slate-950 p-3 font-mono text-xs text-slate-100"
      >
        {q.data?.lines.length ? q.data.lines.join('\n') : 'Nothing logged yet.'}
      </pre>
    </div>
  )
}

/** What functions print, polled: every function's, or the one chosen (`initial` first). */
export function FunctionLogs({
  functions,
  initial = '',
}: {
  functions: string[]
  initial?: string
}) {
  const [fn, setFn] = useState(initial)
  const [lines, setLines] = useState<LogLine[]>([])
  const [error, setError] = useState('')
  useEffect(() => {
    let after = 0
    let stop = false
    setLines([])
    const poll = async () => {
      try {
        const got = await api<LogLine[]>(
          `/functions/logs?after=${after}${fn ? `&function=${encodeURIComponent(fn)}` : ''}`,
        )
        if (got.length) {
          after = got[got.length - 1].seq
          setLines((l) => [...l, ...got].slice(-KEPT))
        }
        setError('')
      } catch (e) {
        setError(errorText(e))
      }
      if (!stop) timer = setTimeout(poll, 1000)
    }
    let timer = setTimeout(poll, 0)
    return () => {
      stop = true
      clearTimeout(timer)
    }
  }, [fn])
  return (
    <div className="space-y-2">
      <label className="flex items-center gap-2 text-xs text-muted-foreground">
        Function
        <Select value={fn} onChange={(e) => setFn(e.target.value)}>
          <option value="">all</option>
          {functions.map((f) => (
            <option key={f}>{f}</option>
          ))}
        </Select>
      </label>
      {error ? (
        <p role="alert" className="text-red-800">
          {error}
        </p>
      ) : null}
      <pre
        role="log"
        aria-label="Function output"
        className="max-h-[60vh] overflow-auto rounded-md bg-slate-950 p-3 font-mono text-xs text-slate-100"
      >
        {lines.length === 0
          ? 'Nothing printed yet: a function prints here once it has run.'
          : lines
              .map(
                (l) =>
                  `${l.at.slice(11, 23)} ${l.function} ${l.stream === 'stderr' ? '!' : ' '} ${l.line}`,
              )
              .join('\n')}
      </pre>
    </div>
  )
}
