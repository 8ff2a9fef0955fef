import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from 'react-router-dom'
import { api } from '@/lib/api'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { Switch } from '@/components/ui/switch'
import { Badge } from '@/components/ui/badge'
import { ErrorNote } from '@/components/ErrorNote'
import { ValueTable } from '@/components/ValueTable'
import { PageHeader } from '@/components/Layout'
import { DataGrid } from './DataGrid'
import { tablePath, type TableInfo } from './types'

export function TableView({ schema, table }: { schema: string; table: string }) {
  const qc = useQueryClient()
  const info = useQuery({ queryKey: ['table', schema, table], queryFn: () => api<TableInfo>(`/tables/${tablePath(schema, table)}`) })
  const rls = useMutation({
    mutationFn: (enabled: boolean) => api(`/tables/${tablePath(schema, table)}`, { method: 'PATCH', json: { rls_enabled: enabled } }),
    onSettled: () => {
      qc.invalidateQueries({ queryKey: ['table', schema, table] })
      qc.invalidateQueries({ queryKey: ['tables', schema] })
    },
  })
  if (info.error) return <div className="p-5"><ErrorNote error={info.error} /></div>
  if (!info.data) return <p className="p-6 text-muted-foreground">Loading {table}…</p>
  const t = info.data
  const isTable = t.kind === 'table' || t.kind === 'partitioned table'
  return (
    <div className="flex h-full flex-col">
      <PageHeader title={`${schema}.${table}`}>
        {!isTable ? <Badge>{t.kind}</Badge> : null}
        {isTable ? (
          <span className="flex items-center gap-2 text-sm">
            <Switch checked={t.rls_enabled} onChange={(v) => rls.mutate(v)} label="Row level security" disabled={rls.isPending} />
            Row level security {t.rls_enabled ? <Badge tone="good">on</Badge> : <Badge tone="warn">off</Badge>}
          </span>
        ) : null}
      </PageHeader>
      {rls.error ? <div className="px-5 pt-3"><ErrorNote error={rls.error} /></div> : null}
      <Tabs defaultValue="data" className="flex min-h-0 flex-1 flex-col px-5 pt-2">
        <TabsList label="Table">
          <TabsTrigger value="data">Data</TabsTrigger>
          <TabsTrigger value="structure">Structure</TabsTrigger>
          <TabsTrigger value="policies">Policies ({t.policies.length})</TabsTrigger>
        </TabsList>
        <TabsContent value="data" className="min-h-0 flex-1 py-3">
          <DataGrid info={t} />
        </TabsContent>
        <TabsContent value="structure" className="space-y-4 py-3">
          <ValueTable
            caption="Columns"
            rows={t.columns.map((c) => ({
              column: c.name,
              type: c.data_type,
              nullable: c.nullable,
              default: c.default,
              'primary key': c.primary_key,
              generated: c.generated,
            }))}
          />
          <h2 className="font-semibold">Foreign keys</h2>
          {t.relations.length === 0 ? <p className="text-muted-foreground">No foreign keys to or from {table}.</p> : null}
          <ul className="space-y-1">
            {t.relations.map((r) => (
              <li key={`${r.name}-${r.outgoing}`}>
                {r.outgoing ? (
                  <>
                    <code>{r.columns.join(', ')}</code> → <Link className="text-primary underline" to={`/tables/${tablePath(r.schema, r.table)}`}>{r.schema}.{r.table}</Link> (<code>{r.foreign_columns.join(', ')}</code>)
                  </>
                ) : (
                  <>
                    <Link className="text-primary underline" to={`/tables/${tablePath(r.schema, r.table)}`}>{r.schema}.{r.table}</Link> (<code>{r.columns.join(', ')}</code>) → <code>{r.foreign_columns.join(', ')}</code>
                  </>
                )}
              </li>
            ))}
          </ul>
        </TabsContent>
        <TabsContent value="policies" className="space-y-3 py-3">
          {isTable && !t.rls_enabled ? (
            <p className="rounded-md bg-amber-50 p-3 text-amber-900">
              Row level security is off: every role with table privileges sees and changes every row, whatever the policies say.
            </p>
          ) : null}
          {t.policies.length === 0 ? <p className="text-muted-foreground">No policies on {table}.</p> : null}
          {t.policies.map((p) => (
            <article key={p.name} className="rounded-md border border-border bg-panel p-3">
              <h3 className="font-medium">
                {p.name} <Badge>{p.command}</Badge> {p.permissive ? null : <Badge tone="warn">restrictive</Badge>}
              </h3>
              <p className="mt-1 text-xs text-muted-foreground">to {p.roles.join(', ')}</p>
              {p.using ? <pre className="mt-2 whitespace-pre-wrap font-mono text-xs">using ({p.using})</pre> : null}
              {p.check ? <pre className="mt-1 whitespace-pre-wrap font-mono text-xs">with check ({p.check})</pre> : null}
            </article>
          ))}
        </TabsContent>
      </Tabs>
    </div>
  )
}
