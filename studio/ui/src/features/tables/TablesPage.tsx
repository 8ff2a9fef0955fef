import { useState } from 'react'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom'
import { Lock, LockOpen } from 'lucide-react'
import { api } from '@/lib/api'
import { cn } from '@/lib/cn'
import { Select } from '@/components/ui/input'
import { ErrorNote } from '@/components/ErrorNote'
import { Button } from '@/components/ui/button'
import { TableView } from './TableView'
import { NewTable, SaveMigration } from './SchemaDialogs'
import { EnumsView } from './IndexesEnums'
import type { TableSummary } from './types'

interface SchemaRow {
  name: string
  tables: number
}

export default function TablesPage() {
  const { schema = 'public', table } = useParams()
  const navigate = useNavigate()
  // `?view=enums` without a table: the schema's enums instead of a table.
  const [search] = useSearchParams()
  const enums = !table && search.get('view') === 'enums'
  const qc = useQueryClient()
  const [creating, setCreating] = useState(false)
  const [saving, setSaving] = useState(false)
  const schemas = useQuery({
    queryKey: ['schemas'],
    queryFn: () => api<SchemaRow[]>('/database/schemas'),
  })
  const tables = useQuery({
    queryKey: ['tables', schema],
    queryFn: () => api<TableSummary[]>(`/tables?schema=${encodeURIComponent(schema)}`),
  })
  return (
    <div className="flex h-full">
      <aside className="flex w-64 shrink-0 flex-col border-r border-border bg-panel">
        <div className="border-b border-border p-3">
          <label className="flex flex-col gap-1 text-xs font-medium text-muted-foreground">
            Schema
            <Select
              value={schema}
              onChange={(e) => navigate(`/tables/${encodeURIComponent(e.target.value)}`)}
            >
              {(schemas.data ?? [{ name: schema, tables: 0 }]).map((s) => (
                <option key={s.name} value={s.name}>
                  {s.name}
                </option>
              ))}
            </Select>
          </label>
          <div className="mt-2 flex gap-2">
            <Button size="sm" onClick={() => setCreating(true)}>
              New table
            </Button>
            <Button size="sm" variant="outline" onClick={() => setSaving(true)}>
              Save as migration
            </Button>
          </div>
          <Link
            to={`/tables/${encodeURIComponent(schema)}?view=enums`}
            aria-current={enums ? 'page' : undefined}
            className={cn(
              'mt-2 block rounded px-2 py-1 text-sm text-primary underline',
              enums && 'font-medium',
            )}
          >
            Enums of {schema}
          </Link>
          <NewTable
            open={creating}
            onOpenChange={setCreating}
            schema={schema}
            tables={tables.data ?? []}
            onCreated={(name) => {
              qc.invalidateQueries({ queryKey: ['tables', schema] })
              navigate(`/tables/${encodeURIComponent(schema)}/${encodeURIComponent(name)}`)
            }}
          />
          <SaveMigration open={saving} onOpenChange={setSaving} />
        </div>
        <nav aria-label="Tables" className="flex-1 overflow-auto p-2">
          {tables.error ? <ErrorNote error={tables.error} /> : null}
          {tables.data?.length === 0 ? (
            <p className="p-2 text-muted-foreground">
              No tables in {schema} yet. Make one with <strong>New table</strong>, or with CREATE
              TABLE in the SQL editor; <strong>Save as migration</strong> then keeps it in
              supabase/migrations.
            </p>
          ) : null}
          <ul>
            {tables.data?.map((t) => (
              <li key={t.name}>
                <Link
                  to={`/tables/${encodeURIComponent(t.schema)}/${encodeURIComponent(t.name)}`}
                  aria-current={t.name === table ? 'page' : undefined}
                  className={cn(
                    'flex items-center gap-2 rounded px-2 py-1.5 hover:bg-muted',
                    t.name === table && 'bg-emerald-50 font-medium text-emerald-900',
                  )}
                >
                  {t.kind === 'table' || t.kind === 'partitioned table' ? (
                    t.rls_enabled ? (
                      <Lock className="size-3.5 text-emerald-700" aria-label="RLS on" />
                    ) : (
                      <LockOpen className="size-3.5 text-amber-600" aria-label="RLS off" />
                    )
                  ) : (
                    <span
                      className="w-3.5 text-[10px] text-muted-foreground"
                      role="img"
                      aria-label={t.kind}
                    >
                      {t.kind === 'view' ? 'V' : t.kind === 'materialized view' ? 'MV' : 'F'}
                    </span>
                  )}
                  <span className="min-w-0 flex-1 truncate">{t.name}</span>
                  <span
                    className="text-xs text-muted-foreground"
                    title={t.exact ? 'rows' : 'rows (estimate)'}
                  >
                    {t.exact ? '' : '≈'}
                    {t.rows.toLocaleString('en-US')}
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </aside>
      <section className="min-w-0 flex-1">
        {table ? (
          <TableView key={`${schema}.${table}`} schema={schema} table={table} />
        ) : enums ? (
          <EnumsView key={schema} schema={schema} />
        ) : (
          <p className="p-6 text-muted-foreground">
            {tables.data?.length === 0
              ? `The schema ${schema} has no tables: New table makes one (RLS on, as Supabase makes them).`
              : 'Choose a table on the left to browse and edit its rows.'}
          </p>
        )}
      </section>
    </div>
  )
}
