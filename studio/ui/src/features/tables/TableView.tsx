import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from 'react-router-dom'
import { api } from '@/lib/api'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { Switch } from '@/components/ui/switch'
import { Badge } from '@/components/ui/badge'
import { ErrorNote } from '@/components/ErrorNote'
import { HeadRow } from '@/components/ValueTable'
import { PageHeader } from '@/components/Layout'
import { DataGrid } from './DataGrid'
import { Button } from '@/components/ui/button'
import { Field, Input } from '@/components/ui/input'
import { tablePath, type Policy, type TableInfo } from './types'
import { ChangeDialog, ColumnFields, PolicyDialog, TypeList } from './SchemaDialogs'
import { PolicyPreview } from './PolicyPreview'
import { IndexesTab } from './IndexesEnums'
import {
  addColumn,
  blankColumn,
  dropColumn,
  dropPolicy,
  renameColumn,
  retypeColumn,
  type ColumnSpec,
} from './ddl'

type Change =
  | { kind: 'add' }
  | { kind: 'rename' | 'retype' | 'drop'; column: string }
  | { kind: 'drop-policy'; policy: string }

function describe(c: Change, table: string): string {
  switch (c.kind) {
    case 'add':
      return `Add a column to ${table}`
    case 'rename':
      return `Rename ${c.column}`
    case 'retype':
      return `Change the type of ${c.column}`
    case 'drop':
      return `Drop ${c.column}`
    case 'drop-policy':
      return `Drop policy ${c.policy}`
  }
}

function sqlOf(c: Change, schema: string, table: string, column: ColumnSpec, text: string): string {
  switch (c.kind) {
    case 'add':
      return addColumn(schema, table, column)
    case 'rename':
      return renameColumn(schema, table, c.column, text)
    case 'retype':
      return retypeColumn(schema, table, c.column, text)
    case 'drop':
      return dropColumn(schema, table, c.column)
    case 'drop-policy':
      return dropPolicy(schema, table, c.policy)
  }
}

function built(f: () => string) {
  try {
    return { sql: f(), error: null }
  } catch (e) {
    return { sql: '', error: e instanceof Error ? e.message : String(e) }
  }
}

export function TableView({ schema, table }: { schema: string; table: string }) {
  const qc = useQueryClient()
  const info = useQuery({
    queryKey: ['table', schema, table],
    queryFn: () => api<TableInfo>(`/tables/${tablePath(schema, table)}`),
  })
  const rls = useMutation({
    mutationFn: (enabled: boolean) =>
      api(`/tables/${tablePath(schema, table)}`, {
        method: 'PATCH',
        json: { rls_enabled: enabled },
      }),
    onSettled: () => {
      qc.invalidateQueries({ queryKey: ['table', schema, table] })
      qc.invalidateQueries({ queryKey: ['tables', schema] })
    },
  })
  const [change, setChange] = useState<Change | null>(null)
  const [text, setText] = useState('')
  const [column, setColumn] = useState<ColumnSpec>(() => blankColumn())
  const [policy, setPolicy] = useState<{ editing: Policy | null } | null>(null)
  const tables = useQuery({
    queryKey: ['tables', schema],
    queryFn: () =>
      api<import('./types').TableSummary[]>(`/tables?schema=${encodeURIComponent(schema)}`),
  })
  const changed = () => {
    qc.invalidateQueries({ queryKey: ['table', schema, table] })
    qc.invalidateQueries({ queryKey: ['tables', schema] })
    qc.invalidateQueries({ queryKey: ['sql-catalog'] })
  }
  if (info.error)
    return (
      <div className="p-5">
        <ErrorNote error={info.error} />
      </div>
    )
  if (!info.data) return <p className="p-6 text-muted-foreground">Loading {table}…</p>
  const t = info.data
  const isTable = t.kind === 'table' || t.kind === 'partitioned table'
  return (
    <div className="flex h-full flex-col">
      <PageHeader title={`${schema}.${table}`}>
        {!isTable ? <Badge>{t.kind}</Badge> : null}
        {isTable ? (
          <span className="flex items-center gap-2 text-sm">
            <Switch
              checked={t.rls_enabled}
              onChange={(v) => rls.mutate(v)}
              label="Row level security"
              disabled={rls.isPending}
            />
            Row level security{' '}
            {t.rls_enabled ? <Badge tone="good">on</Badge> : <Badge tone="warn">off</Badge>}
          </span>
        ) : null}
      </PageHeader>
      {rls.error ? (
        <div className="px-5 pt-3">
          <ErrorNote error={rls.error} />
        </div>
      ) : null}
      <Tabs defaultValue="data" className="flex min-h-0 flex-1 flex-col px-5 pt-2">
        <TabsList label="Table">
          <TabsTrigger value="data">Data</TabsTrigger>
          <TabsTrigger value="structure">Structure</TabsTrigger>
          <TabsTrigger value="policies">Policies ({t.policies.length})</TabsTrigger>
          <TabsTrigger value="indexes">Indexes ({t.indexes.length})</TabsTrigger>
        </TabsList>
        <TabsContent value="data" className="min-h-0 flex-1 py-3">
          <DataGrid info={t} />
        </TabsContent>
        <TabsContent value="structure" className="space-y-4 py-3">
          {isTable ? (
            <Button
              size="sm"
              onClick={() => {
                setColumn(blankColumn())
                setChange({ kind: 'add' })
              }}
            >
              Add column
            </Button>
          ) : null}
          <table className="w-full border-collapse text-left text-xs">
            <caption className="sr-only">Columns</caption>
            <thead className="bg-muted">
              <HeadRow
                headings={['column', 'type', 'nullable', 'default', 'primary key', 'generated', '']}
              />
            </thead>
            <tbody>
              {t.columns.map((c) => (
                <tr key={c.name}>
                  <td className="border-b border-border px-2 py-1 font-mono">{c.name}</td>
                  <td className="border-b border-border px-2 py-1 font-mono">{c.data_type}</td>
                  <td className="border-b border-border px-2 py-1">{String(c.nullable)}</td>
                  <td className="border-b border-border px-2 py-1 font-mono">
                    {c.default ?? 'NULL'}
                  </td>
                  <td className="border-b border-border px-2 py-1">{String(c.primary_key)}</td>
                  <td className="border-b border-border px-2 py-1">{String(c.generated)}</td>
                  <td className="border-b border-border px-2 py-1">
                    {isTable ? (
                      <span className="flex gap-1">
                        <Button
                          size="sm"
                          variant="ghost"
                          aria-label={`Rename ${c.name}`}
                          onClick={() => {
                            setText(c.name)
                            setChange({ kind: 'rename', column: c.name })
                          }}
                        >
                          Rename
                        </Button>
                        <Button
                          size="sm"
                          variant="ghost"
                          aria-label={`Change type of ${c.name}`}
                          onClick={() => {
                            setText(c.data_type)
                            setChange({ kind: 'retype', column: c.name })
                          }}
                        >
                          Type
                        </Button>
                        <Button
                          size="sm"
                          variant="ghost"
                          aria-label={`Drop ${c.name}`}
                          onClick={() => setChange({ kind: 'drop', column: c.name })}
                        >
                          Drop
                        </Button>
                      </span>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2 className="font-semibold">Foreign keys</h2>
          {t.relations.length === 0 ? (
            <p className="text-muted-foreground">No foreign keys to or from {table}.</p>
          ) : null}
          <ul className="space-y-1">
            {t.relations.map((r) => (
              <li key={`${r.name}-${r.outgoing}`}>
                {r.outgoing ? (
                  <>
                    <code>{r.columns.join(', ')}</code> →{' '}
                    <Link
                      className="text-primary underline"
                      to={`/tables/${tablePath(r.schema, r.table)}`}
                    >
                      {r.schema}.{r.table}
                    </Link>{' '}
                    (<code>{r.foreign_columns.join(', ')}</code>)
                  </>
                ) : (
                  <>
                    <Link
                      className="text-primary underline"
                      to={`/tables/${tablePath(r.schema, r.table)}`}
                    >
                      {r.schema}.{r.table}
                    </Link>{' '}
                    (<code>{r.columns.join(', ')}</code>) →{' '}
                    <code>{r.foreign_columns.join(', ')}</code>
                  </>
                )}
              </li>
            ))}
          </ul>
        </TabsContent>
        <TabsContent value="indexes" className="py-3">
          <IndexesTab info={t} onChanged={changed} />
        </TabsContent>
        <TabsContent value="policies" className="space-y-3 py-3">
          {isTable && !t.rls_enabled ? (
            <p className="rounded-md bg-amber-50 p-3 text-amber-900">
              Row level security is off: every role with table privileges sees and changes every
              row, whatever the policies say.
            </p>
          ) : null}
          {isTable ? (
            <Button size="sm" onClick={() => setPolicy({ editing: null })}>
              New policy
            </Button>
          ) : null}
          {policy ? (
            <PolicyDialog
              open
              onOpenChange={(o) => !o && setPolicy(null)}
              schema={schema}
              table={table}
              columns={t.columns.map((c) => c.name)}
              editing={policy.editing}
              onDone={changed}
            />
          ) : null}
          {t.policies.length === 0 ? (
            <p className="text-muted-foreground">No policies on {table}.</p>
          ) : null}
          {isTable ? <PolicyPreview schema={schema} table={table} /> : null}
          {t.policies.map((p) => (
            <article key={p.name} className="rounded-md border border-border bg-panel p-3">
              <h3 className="font-medium">
                {p.name} <Badge>{p.command}</Badge>{' '}
                {p.permissive ? null : <Badge tone="warn">restrictive</Badge>}
              </h3>
              <p className="mt-1 text-xs text-muted-foreground">to {p.roles.join(', ')}</p>
              <span className="mt-1 flex gap-1">
                <Button
                  size="sm"
                  variant="outline"
                  aria-label={`Edit policy ${p.name}`}
                  onClick={() => setPolicy({ editing: p })}
                >
                  Edit
                </Button>
                <Button
                  size="sm"
                  variant="outline"
                  aria-label={`Drop policy ${p.name}`}
                  onClick={() => setChange({ kind: 'drop-policy', policy: p.name })}
                >
                  Drop
                </Button>
              </span>
              {p.using ? (
                <pre className="mt-2 whitespace-pre-wrap font-mono text-xs">using ({p.using})</pre>
              ) : null}
              {p.check ? (
                <pre className="mt-1 whitespace-pre-wrap font-mono text-xs">
                  with check ({p.check})
                </pre>
              ) : null}
            </article>
          ))}
        </TabsContent>
      </Tabs>
      {change ? (
        <ChangeDialog
          open
          onOpenChange={(o) => !o && setChange(null)}
          title={describe(change, table)}
          label={
            change.kind === 'add'
              ? 'Add column'
              : change.kind === 'rename'
                ? 'Rename'
                : change.kind === 'retype'
                  ? 'Change type'
                  : 'Drop'
          }
          built={built(() => sqlOf(change, schema, table, column, text))}
          onDone={changed}
        >
          <TypeList />
          {change.kind === 'add' ? (
            <ColumnFields c={column} index={0} tables={tables.data ?? []} onChange={setColumn} />
          ) : null}
          {change.kind === 'rename' ? (
            <Field label="New name">
              <Input aria-label="New name" value={text} onChange={(e) => setText(e.target.value)} />
            </Field>
          ) : null}
          {change.kind === 'retype' ? (
            <Field label="New type">
              <Input
                aria-label="New type"
                list="studio-types"
                value={text}
                onChange={(e) => setText(e.target.value)}
              />
            </Field>
          ) : null}
        </ChangeDialog>
      ) : null}
    </div>
  )
}
