import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { NavLink, useParams } from 'react-router-dom'
import { api, errorText } from '@/lib/api'
import { cn } from '@/lib/cn'
import { useSession } from '@/lib/session'
import { PageHeader } from '@/components/Layout'
import { Button } from '@/components/ui/button'
import { Badge } from '@/components/ui/badge'
import { Field, Select } from '@/components/ui/input'
import { ErrorNote } from '@/components/ErrorNote'
import { FunctionLogs } from '@/features/logs/LogsPage'
import { UserPicker, type Chosen } from '@/features/auth/UserPicker'
import { METHODS, asWho, remember, request, type Call, type CallAs, type Method } from './invoke'

interface EdgeFunction {
  slug: string
  verify_jwt: boolean
  entrypoint: string
}

interface Served {
  served: boolean
  functions: EdgeFunction[]
  disabled: string[]
  skipped: string[]
}

/** The project's Edge Functions: each with verify_jwt, its output, a call made from here and the calls made. */
export default function FunctionsPage() {
  const { slug } = useParams()
  const list = useQuery({ queryKey: ['functions'], queryFn: () => api<Served>('/functions') })
  const chosen = list.data?.functions.find((f) => f.slug === slug)
  return (
    <div className="flex h-full">
      <aside className="w-64 shrink-0 border-r border-border bg-panel p-2">
        <nav aria-label="Functions">
          <ErrorNote error={list.error} />
          {list.data && !list.data.served ? (
            <p className="p-2 text-muted-foreground">
              Edge Functions are off for this project ([edge_runtime] enabled = false).
            </p>
          ) : null}
          {list.data?.served && list.data.functions.length === 0 ? (
            <p className="p-2 text-muted-foreground">
              No functions: `supagate functions new hello` makes supabase/functions/hello/index.ts.
            </p>
          ) : null}
          <ul>
            {list.data?.functions.map((f) => (
              <li key={f.slug}>
                <NavLink
                  to={`/functions/${encodeURIComponent(f.slug)}`}
                  className={({ isActive }) =>
                    cn(
                      'flex items-center justify-between rounded px-2 py-1.5 hover:bg-muted',
                      isActive && 'bg-muted font-medium',
                    )
                  }
                >
                  {f.slug}
                  {f.verify_jwt ? null : <Badge tone="warn">no JWT check</Badge>}
                </NavLink>
              </li>
            ))}
          </ul>
          {list.data?.disabled.length ? (
            <p className="mt-3 px-2 text-xs text-muted-foreground">
              Disabled in config.toml: {list.data.disabled.join(', ')}
            </p>
          ) : null}
          {list.data?.skipped.length ? (
            <p className="mt-1 px-2 text-xs text-muted-foreground">
              Not functions: {list.data.skipped.join('; ')}
            </p>
          ) : null}
        </nav>
      </aside>
      <section className="min-w-0 flex-1">
        {chosen ? (
          <FunctionView key={chosen.slug} f={chosen} />
        ) : (
          <>
            <PageHeader title="Edge Functions" />
            <p className="p-6 text-muted-foreground">
              {slug && list.data
                ? `There is no function ${slug}.`
                : 'Choose a function to call it and read what it prints.'}
            </p>
          </>
        )}
      </section>
    </div>
  )
}

function FunctionView({ f }: { f: EdgeFunction }) {
  const { session } = useSession()
  const [method, setMethod] = useState<Method>('POST')
  const [role, setRole] = useState<CallAs>('anon')
  const [user, setUser] = useState<Chosen | null>(null)
  const [body, setBody] = useState('{"name":"Studio"}')
  const [calls, setCalls] = useState<Call[]>([])
  const [answer, setAnswer] = useState<{ status: number; text: string } | null>(null)
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const invoke = async () => {
    setError('')
    setBusy(true)
    const at = new Date().toISOString()
    const started = performance.now()
    let status: number | null = null
    try {
      if (role === 'user' && !user) throw new Error('Choose the user to call as.')
      // Studio's server signs a five-minute token for the user (nothing else can ask it to).
      const bearer =
        role === 'user' && user
          ? (
              await api<{ access_token: string }>(`/users/${encodeURIComponent(user.id)}/token`, {
                method: 'POST',
              })
            ).access_token
          : undefined
      const r = request(
        session.api_url,
        f.slug,
        method,
        role === 'service_role' ? session.service_key : session.anon_key,
        body,
        bearer,
      )
      const res = await fetch(r.url, r.init)
      status = res.status
      // The page shows at most 64 KiB of an answer.
      const text = (await res.text()).slice(0, 64 * 1024)
      setAnswer({ status, text })
    } catch (e) {
      setAnswer(null)
      setError(errorText(e))
    } finally {
      setCalls((c) =>
        remember(c, {
          at,
          slug: f.slug,
          method,
          role: asWho(role, user?.email),
          status,
          ms: Math.round(performance.now() - started),
          body: body.slice(0, 200),
        }),
      )
      setBusy(false)
    }
  }
  return (
    <div className="flex flex-col">
      <PageHeader title={f.slug}>
        {f.verify_jwt ? (
          <Badge tone="good">verify_jwt</Badge>
        ) : (
          <Badge tone="warn">verify_jwt off</Badge>
        )}
        <code className="text-xs text-muted-foreground">{f.entrypoint}</code>
      </PageHeader>
      <div className="space-y-4 p-5">
        <section aria-labelledby="invoke" className="space-y-2">
          <h2 id="invoke" className="font-semibold">
            Invoke
          </h2>
          <div className="flex flex-wrap items-end gap-2">
            <Field label="Method">
              <Select
                aria-label="Method"
                value={method}
                onChange={(e) => setMethod(e.target.value as Method)}
              >
                {METHODS.map((m) => (
                  <option key={m}>{m}</option>
                ))}
              </Select>
            </Field>
            <Field label="As">
              <Select
                aria-label="Call as"
                value={role}
                onChange={(e) => setRole(e.target.value as CallAs)}
              >
                <option value="anon">anon (publishable key)</option>
                <option value="service_role">service_role (secret key)</option>
                <option value="user">a user (their access token)</option>
              </Select>
            </Field>
            {role === 'user' ? <UserPicker chosen={user} onChoose={setUser} /> : null}
            <Button onClick={invoke} disabled={busy}>
              Send
            </Button>
          </div>
          <label className="flex flex-col gap-1 text-xs font-medium text-muted-foreground">
            Body
            <textarea
              aria-label="Body"
              value={body}
              onChange={(e) => setBody(e.target.value)}
              rows={4}
              className="rounded-md border border-border bg-panel p-2 font-mono text-sm text-foreground"
            />
          </label>
          {error ? (
            <p role="alert" className="text-red-800">
              {error}
            </p>
          ) : null}
          {answer ? (
            <div>
              <p className="text-sm">
                Status <output aria-label="Answer status">{answer.status}</output>
              </p>
              <pre
                role="region"
                aria-label="Answer"
                className="max-h-60 overflow-auto whitespace-pre-wrap rounded-md border border-border bg-muted p-2 font-mono text-xs"
              >
                {answer.text}
              </pre>
            </div>
          ) : null}
        </section>
        <section aria-labelledby="calls" className="space-y-2">
          <h2 id="calls" className="font-semibold">
            Calls from this page
          </h2>
          {calls.length === 0 ? (
            <p className="text-muted-foreground">
              No calls yet: Send calls the function. Every request to the API is in Logs.
            </p>
          ) : (
            <table className="w-full border-collapse text-left text-xs">
              <caption className="sr-only">Recent calls</caption>
              <thead className="bg-muted">
                <tr>
                  {['time', 'method', 'as', 'status', 'ms'].map((h) => (
                    <th key={h} scope="col" className="px-2 py-1 font-semibold">
                      {h}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {calls.map((c, i) => (
                  <tr key={i}>
                    <td className="px-2 py-1 font-mono">{c.at.slice(11, 23)}</td>
                    <td className="px-2 py-1">{c.method}</td>
                    <td className="px-2 py-1">{c.role}</td>
                    <td className="px-2 py-1">{c.status ?? 'failed'}</td>
                    <td className="px-2 py-1">{c.ms}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        <section aria-labelledby="output" className="space-y-2">
          <h2 id="output" className="font-semibold">
            Output
          </h2>
          <FunctionLogs functions={[f.slug]} initial={f.slug} />
        </section>
      </div>
    </div>
  )
}
