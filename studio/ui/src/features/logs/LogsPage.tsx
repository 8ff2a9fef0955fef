import { useEffect, useState } from 'react'
import { useSession } from '@/lib/session'
import { api, errorText } from '@/lib/api'
import { Input, Select } from '@/components/ui/input'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { Badge } from '@/components/ui/badge'
import { PageHeader } from '@/components/Layout'

interface RequestEvent {
  id: string
  at: string
  method: string
  path: string
  status: number
  ms: number
  role: string | null
  sub?: string | null
  error?: { code?: string; message?: string }
  sql?: string
}

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
      </Tabs>
    </div>
  )
}

function Requests() {
  const [events, setEvents] = useState<RequestEvent[]>([])
  const [state, setState] = useState('connecting')
  const [find, setFind] = useState('')
  useEffect(() => {
    // The request inspector records while someone follows it: from the moment this page opens.
    const source = new EventSource('/api/requests')
    source.onopen = () => setState('following')
    source.onerror = () => setState('reconnecting')
    source.onmessage = (m) =>
      setEvents((e) => [JSON.parse(m.data) as RequestEvent, ...e].slice(0, KEPT))
    return () => source.close()
  }, [])
  const shown = events.filter(
    (e) =>
      !find ||
      `${e.method} ${e.path} ${e.status} ${e.id} ${e.role}`
        .toLowerCase()
        .includes(find.toLowerCase()),
  )
  return (
    <div className="space-y-2">
      <div className="flex items-center gap-3">
        <Input
          type="search"
          aria-label="Find requests"
          placeholder="Find by path, status, id, role"
          value={find}
          onChange={(e) => setFind(e.target.value)}
          className="w-80"
        />
        <span role="status" className="text-xs text-muted-foreground">
          {state === 'following'
            ? 'Following requests as they come (newest first).'
            : `Inspector: ${state}…`}
        </span>
      </div>
      <div className="overflow-auto rounded-md border border-border bg-panel">
        <table className="w-full text-left text-xs">
          <caption className="sr-only">API requests</caption>
          <thead className="bg-muted">
            <tr>
              {['Time', 'Request', 'Status', 'ms', 'Role', 'Request id'].map((h) => (
                <th key={h} scope="col" className="px-2 py-1.5 font-semibold">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((e) => (
              <tr key={e.id} className="border-t border-border align-top">
                <td className="whitespace-nowrap px-2 py-1">{e.at.slice(11, 23)}</td>
                <td className="px-2 py-1 font-mono">
                  {e.method} {e.path}
                  {e.error?.message ? (
                    <span className="block text-red-800">
                      {e.error.code} {e.error.message}
                    </span>
                  ) : null}
                </td>
                <td className="px-2 py-1">
                  <Badge tone={e.status >= 500 ? 'bad' : e.status >= 400 ? 'warn' : 'good'}>
                    {e.status}
                  </Badge>
                </td>
                <td className="px-2 py-1">{e.ms}</td>
                <td className="px-2 py-1">{e.role ?? '—'}</td>
                <td className="px-2 py-1 font-mono text-muted-foreground">{e.id}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {shown.length === 0 ? (
          <p className="p-3 text-muted-foreground">
            No requests yet: they appear here as the API answers them.
          </p>
        ) : null}
      </div>
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
