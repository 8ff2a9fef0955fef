import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { useSession } from '@/lib/session'
import { cn } from '@/lib/cn'
import { ErrorNote } from '@/components/ErrorNote'
import { PageHeader } from '@/components/Layout'

interface OpenApi {
  definitions?: Record<
    string,
    {
      properties?: Record<string, { type?: string; format?: string; description?: string }>
      required?: string[]
      description?: string
    }
  >
  paths?: Record<
    string,
    Record<
      string,
      {
        parameters?: {
          name: string
          in: string
          schema?: { properties?: Record<string, { format?: string; type?: string }> }
        }[]
        summary?: string
        description?: string
      }
    >
  >
}

interface Entry {
  kind: 'table' | 'function'
  name: string
  description?: string
  fields: { name: string; type: string; required: boolean; description?: string }[]
}

/** The tables and functions of the OpenAPI document `/rest/v1/` serves. */
function entries(doc: OpenApi): Entry[] {
  const tables: Entry[] = Object.entries(doc.definitions ?? {}).map(([name, d]) => ({
    kind: 'table',
    name,
    description: d.description,
    fields: Object.entries(d.properties ?? {}).map(([f, p]) => ({
      name: f,
      type: p.format ?? p.type ?? '',
      required: (d.required ?? []).includes(f),
      description: p.description,
    })),
  }))
  const functions: Entry[] = Object.entries(doc.paths ?? {})
    .filter(([p]) => p.startsWith('/rpc/'))
    .map(([p, ops]) => {
      const op = ops.post ?? ops.get ?? {}
      const body = op.parameters?.find((x) => x.in === 'body')
      return {
        kind: 'function',
        name: p.slice(5),
        description: op.summary ?? op.description,
        fields: Object.entries(body?.schema?.properties ?? {}).map(([f, t]) => ({
          name: f,
          type: t.format ?? t.type ?? '',
          required: true,
        })),
      }
    })
  return [...tables, ...functions]
}

function example(value: string) {
  if (/int|numeric|real|double|bigint|smallint/.test(value)) return '1'
  if (value === 'boolean') return 'true'
  if (/json/.test(value)) return '{}'
  return `'…'`
}

function snippets(e: Entry): { title: string; code: string }[] {
  const args = e.fields.map((f) => `${f.name}: ${example(f.type)}`).join(', ')
  if (e.kind === 'function')
    return [
      {
        title: 'Call',
        code: `const { data, error } = await supabase.rpc('${e.name}'${args ? `, { ${args} }` : ''})`,
      },
    ]
  const first = e.fields[0]?.name ?? 'id'
  const writable = e.fields
    .filter((f) => f.required)
    .map((f) => `${f.name}: ${example(f.type)}`)
    .join(', ')
  return [
    {
      title: 'Read rows',
      code: `const { data, error } = await supabase\n  .from('${e.name}')\n  .select('*')\n  .range(0, 9)`,
    },
    {
      title: 'Filter',
      code: `const { data, error } = await supabase\n  .from('${e.name}')\n  .select('${
        e.fields
          .slice(0, 3)
          .map((f) => f.name)
          .join(', ') || '*'
      }')\n  .eq('${first}', ${example(e.fields[0]?.type ?? '')})`,
    },
    {
      title: 'Insert',
      code: `const { data, error } = await supabase\n  .from('${e.name}')\n  .insert({ ${writable} })\n  .select()`,
    },
    {
      title: 'Update',
      code: `const { data, error } = await supabase\n  .from('${e.name}')\n  .update({ ${e.fields[1]?.name ?? first}: ${example(e.fields[1]?.type ?? '')} })\n  .eq('${first}', ${example(e.fields[0]?.type ?? '')})\n  .select()`,
    },
    {
      title: 'Delete',
      code: `const { error } = await supabase\n  .from('${e.name}')\n  .delete()\n  .eq('${first}', ${example(e.fields[0]?.type ?? '')})`,
    },
    {
      title: 'Subscribe to changes',
      code: `supabase\n  .channel('${e.name}-changes')\n  .on('postgres_changes', { event: '*', schema: 'public', table: '${e.name}' }, (payload) => console.log(payload))\n  .subscribe()`,
    },
  ]
}

export default function ApiDocsPage() {
  const { session } = useSession()
  const [chosen, setChosen] = useState<string | null>(null)
  const doc = useQuery({
    queryKey: ['openapi'],
    queryFn: async () => {
      const res = await fetch(`${session.api_url}/rest/v1/`, {
        headers: {
          apikey: session.service_key,
          Authorization: `Bearer ${session.service_key}`,
          Accept: 'application/openapi+json',
        },
      })
      if (!res.ok) throw new Error(`The REST API answered ${res.status}`)
      return entries((await res.json()) as OpenApi)
    },
  })
  const current = doc.data?.find((e) => `${e.kind}:${e.name}` === chosen) ?? doc.data?.[0]
  return (
    <div className="flex h-full flex-col">
      <PageHeader title="API docs" />
      <div className="flex min-h-0 flex-1">
        <nav
          aria-label="Tables and functions"
          className="w-60 shrink-0 overflow-auto border-r border-border bg-panel p-3"
        >
          <section className="space-y-3 text-xs">
            <div>
              <h2 className="font-semibold">Connect</h2>
              <pre className="mt-1 whitespace-pre-wrap rounded bg-slate-950 p-2 font-mono text-[11px] text-emerald-100">{`import { createClient } from '@supabase/supabase-js'\nconst supabase = createClient(\n  '${session.api_url}',\n  '<anon key>'\n)`}</pre>
            </div>
            {(['table', 'function'] as const).map((kind) => (
              <div key={kind}>
                <h2 className="font-semibold">
                  {kind === 'table' ? 'Tables and views' : 'Functions'}
                </h2>
                <ul className="mt-1">
                  {doc.data
                    ?.filter((e) => e.kind === kind)
                    .map((e) => (
                      <li key={e.name}>
                        <button
                          type="button"
                          onClick={() => setChosen(`${e.kind}:${e.name}`)}
                          className={cn(
                            'w-full truncate rounded px-1.5 py-1 text-left hover:bg-muted',
                            current === e && 'bg-emerald-50 font-medium',
                          )}
                        >
                          {e.name}
                        </button>
                      </li>
                    ))}
                </ul>
              </div>
            ))}
          </section>
        </nav>
        <article className="min-w-0 flex-1 space-y-4 overflow-auto p-5">
          <ErrorNote error={doc.error} />
          {current ? (
            <>
              <h2 className="text-lg font-semibold">{current.name}</h2>
              {current.description ? (
                <p className="text-muted-foreground">{current.description}</p>
              ) : null}
              <table className="w-full max-w-3xl text-left text-xs">
                <caption className="sr-only">
                  {current.kind === 'table' ? 'Columns' : 'Arguments'}
                </caption>
                <thead>
                  <tr className="border-b border-border">
                    <th scope="col" className="py-1">
                      {current.kind === 'table' ? 'Column' : 'Argument'}
                    </th>
                    <th scope="col">Type</th>
                    <th scope="col">Required</th>
                    <th scope="col">Description</th>
                  </tr>
                </thead>
                <tbody>
                  {current.fields.map((f) => (
                    <tr key={f.name} className="border-b border-border">
                      <td className="py-1 font-mono">{f.name}</td>
                      <td className="font-mono">{f.type}</td>
                      <td>{f.required ? 'yes' : ''}</td>
                      <td className="text-muted-foreground">{f.description ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {snippets(current).map((s) => (
                <section key={s.title}>
                  <h3 className="font-medium">{s.title}</h3>
                  <pre className="mt-1 overflow-auto rounded-md bg-slate-950 p-3 font-mono text-xs text-emerald-100">
                    {s.code}
                  </pre>
                </section>
              ))}
            </>
          ) : doc.data ? (
            <p className="text-muted-foreground">The API exposes no table or function yet.</p>
          ) : null}
        </article>
      </div>
    </div>
  )
}
