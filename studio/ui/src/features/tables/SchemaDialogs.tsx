import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api, errorText } from '@/lib/api'
import { Button } from '@/components/ui/button'
import { Field, Input, Select } from '@/components/ui/input'
import { Dialog } from '@/components/ui/dialog'
import { ErrorNote } from '@/components/ErrorNote'
import {
  blankColumn,
  COMMANDS,
  COMMON_TYPES,
  createPolicy,
  createTable,
  ON_DELETE,
  POLICY_TEMPLATES,
  replacePolicy,
  starterColumns,
  type ColumnSpec,
  type Command,
  type OnDelete,
  type PolicySpec,
} from './ddl'
import type { Policy, TableSummary } from './types'

/** SQL built by one of ddl.ts's functions, or why it cannot be. */
function build(f: () => string): { sql: string; error: string | null } {
  try {
    return { sql: f(), error: null }
  } catch (e) {
    return { sql: '', error: errorText(e) }
  }
}

/** The SQL a change runs, shown before it runs, and the button that runs it (as the SQL editor does). */
export function SqlPreview({
  built,
  label,
  onDone,
}: {
  built: { sql: string; error: string | null }
  label: string
  onDone: () => void
}) {
  const run = useMutation({
    mutationFn: () => api('/sql', { method: 'POST', json: { query: built.sql } }),
    onSuccess: onDone,
  })
  return (
    <div className="mt-3 flex flex-col gap-2">
      <h3 className="text-xs font-semibold uppercase tracking-wide text-muted-foreground">
        SQL to run
      </h3>
      {built.error ? (
        <p className="rounded-md bg-amber-50 p-2 text-amber-900">{built.error}</p>
      ) : (
        <pre
          role="region"
          aria-label="SQL to run"
          className="max-h-60 overflow-auto whitespace-pre-wrap rounded-md border border-border bg-muted p-2 font-mono text-xs"
        >
          {built.sql}
        </pre>
      )}
      <ErrorNote error={run.error} />
      <div className="flex justify-end">
        <Button onClick={() => run.mutate()} disabled={!!built.error || run.isPending}>
          {label}
        </Button>
      </div>
    </div>
  )
}

/** A column's fields: name, type, default, nullability, key, identity, unique, foreign key. */
export function ColumnFields({
  c,
  onChange,
  tables,
  index,
}: {
  c: ColumnSpec
  onChange: (c: ColumnSpec) => void
  tables: TableSummary[]
  index: number
}) {
  const ref = c.references
  const check = (label: string, key: 'nullable' | 'primaryKey' | 'identity' | 'unique') => (
    <label className="flex items-center gap-1 text-xs">
      <input
        type="checkbox"
        checked={c[key]}
        onChange={(e) => onChange({ ...c, [key]: e.target.checked })}
      />
      {label}
    </label>
  )
  return (
    <fieldset className="rounded-md border border-border p-2">
      <legend className="px-1 text-xs text-muted-foreground">Column {index + 1}</legend>
      <div className="flex flex-wrap items-end gap-2">
        <Field label="Name">
          <Input
            aria-label={`Column ${index + 1} name`}
            value={c.name}
            onChange={(e) => onChange({ ...c, name: e.target.value })}
            className="w-36"
          />
        </Field>
        <Field label="Type">
          <Input
            aria-label={`Column ${index + 1} type`}
            list="studio-types"
            value={c.type}
            onChange={(e) => onChange({ ...c, type: e.target.value })}
            className="w-32"
          />
        </Field>
        <Field label="Default (SQL)">
          <Input
            aria-label={`Column ${index + 1} default`}
            value={c.default}
            onChange={(e) => onChange({ ...c, default: e.target.value })}
            className="w-28 font-mono"
          />
        </Field>
        {check('Nullable', 'nullable')}
        {check('Primary key', 'primaryKey')}
        {check('Identity', 'identity')}
        {check('Unique', 'unique')}
      </div>
      <div className="mt-2 flex flex-wrap items-end gap-2">
        <Field label="References">
          <Select
            aria-label={`Column ${index + 1} references`}
            value={ref ? `${ref.schema}.${ref.table}` : ''}
            onChange={(e) => {
              const v = e.target.value
              if (!v) return onChange({ ...c, references: null })
              const dot = v.indexOf('.')
              onChange({
                ...c,
                references: {
                  schema: v.slice(0, dot),
                  table: v.slice(dot + 1),
                  column: ref?.column ?? 'id',
                  onDelete: ref?.onDelete ?? 'NO ACTION',
                },
              })
            }}
          >
            <option value="">(no foreign key)</option>
            <option value="auth.users">auth.users</option>
            {tables
              .filter((t) => t.kind === 'table' || t.kind === 'partitioned table')
              .map((t) => (
                <option key={`${t.schema}.${t.name}`} value={`${t.schema}.${t.name}`}>
                  {t.schema}.{t.name}
                </option>
              ))}
          </Select>
        </Field>
        {ref ? (
          <>
            <Field label="Column">
              <Input
                aria-label={`Column ${index + 1} referenced column`}
                value={ref.column}
                onChange={(e) => onChange({ ...c, references: { ...ref, column: e.target.value } })}
                className="w-24"
              />
            </Field>
            <Field label="On delete">
              <Select
                aria-label={`Column ${index + 1} on delete`}
                value={ref.onDelete}
                onChange={(e) =>
                  onChange({ ...c, references: { ...ref, onDelete: e.target.value as OnDelete } })
                }
              >
                {ON_DELETE.map((o) => (
                  <option key={o}>{o}</option>
                ))}
              </Select>
            </Field>
          </>
        ) : null}
      </div>
    </fieldset>
  )
}

export function TypeList() {
  return (
    <datalist id="studio-types">
      {COMMON_TYPES.map((t) => (
        <option key={t} value={t} />
      ))}
    </datalist>
  )
}

/** A new table: Supabase's starter columns, more columns, RLS on by default. */
export function NewTable({
  open,
  onOpenChange,
  schema,
  tables,
  onCreated,
}: {
  open: boolean
  onOpenChange: (o: boolean) => void
  schema: string
  tables: TableSummary[]
  onCreated: (name: string) => void
}) {
  const [name, setName] = useState('')
  const [rls, setRls] = useState(true)
  const [columns, setColumns] = useState<ColumnSpec[]>(starterColumns)
  const built = build(() => createTable({ schema, name, columns, rls }))
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={`New table in ${schema}`}
      description="Each change is shown as the SQL it runs before it runs."
    >
      <TypeList />
      <div className="flex flex-col gap-3">
        <Field label="Table name">
          <Input aria-label="Table name" value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={rls} onChange={(e) => setRls(e.target.checked)} /> Enable
          row level security (recommended)
        </label>
        {columns.map((c, i) => (
          <div key={i} className="flex items-start gap-1">
            <ColumnFields
              c={c}
              index={i}
              tables={tables}
              onChange={(n) => setColumns(columns.map((x, j) => (j === i ? n : x)))}
            />
            <Button
              variant="ghost"
              size="sm"
              aria-label={`Remove column ${i + 1}`}
              onClick={() => setColumns(columns.filter((_, j) => j !== i))}
            >
              ✕
            </Button>
          </div>
        ))}
        <Button variant="outline" onClick={() => setColumns([...columns, blankColumn()])}>
          Add column
        </Button>
      </div>
      <SqlPreview
        built={built}
        label="Create table"
        onDone={() => {
          onOpenChange(false)
          onCreated(name)
          setName('')
          setColumns(starterColumns())
        }}
      />
    </Dialog>
  )
}

/** A one-statement change (add, rename, retype, drop a column; drop a policy) shown, then run. */
export function ChangeDialog({
  open,
  onOpenChange,
  title,
  children,
  built,
  label,
  onDone,
}: {
  open: boolean
  onOpenChange: (o: boolean) => void
  title: string
  children?: React.ReactNode
  built: { sql: string; error: string | null }
  label: string
  onDone: () => void
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={title}>
      {children}
      <SqlPreview
        built={built}
        label={label}
        onDone={() => {
          onOpenChange(false)
          onDone()
        }}
      />
    </Dialog>
  )
}

/** A policy from one of Supabase's templates, or edited: CREATE POLICY (or DROP and CREATE). */
export function PolicyDialog({
  open,
  onOpenChange,
  schema,
  table,
  columns,
  editing,
  onDone,
}: {
  open: boolean
  onOpenChange: (o: boolean) => void
  schema: string
  table: string
  columns: string[]
  editing: Policy | null
  onDone: () => void
}) {
  const owner =
    columns.find((c) => c === 'user_id') ??
    columns.find((c) => /user|owner|author/.test(c)) ??
    columns[0] ??
    'user_id'
  const [ownerColumn, setOwnerColumn] = useState(owner)
  const [p, setP] = useState<PolicySpec>(() =>
    editing
      ? {
          name: editing.name,
          command: editing.command as Command,
          roles: editing.roles,
          permissive: editing.permissive,
          using: editing.using ?? '',
          check: editing.check ?? '',
        }
      : { ...POLICY_TEMPLATES[0].make(owner), permissive: true },
  )
  const built = build(() =>
    editing ? replacePolicy(schema, table, editing.name, p) : createPolicy(schema, table, p),
  )
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={editing ? `Edit policy ${editing.name}` : `New policy on ${table}`}
    >
      <div className="flex flex-col gap-3">
        <div className="flex flex-wrap gap-2">
          <Field label="Template">
            <Select
              aria-label="Template"
              defaultValue=""
              onChange={(e) => {
                const t = POLICY_TEMPLATES.find((x) => x.id === e.target.value)
                if (t) setP({ ...t.make(ownerColumn), permissive: true })
              }}
            >
              <option value="">(choose a template)</option>
              {POLICY_TEMPLATES.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.title}
                </option>
              ))}
            </Select>
          </Field>
          <Field label="Owner column">
            <Select
              aria-label="Owner column"
              value={ownerColumn}
              onChange={(e) => setOwnerColumn(e.target.value)}
            >
              {columns.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </Select>
          </Field>
        </div>
        <Field label="Policy name">
          <Input
            aria-label="Policy name"
            value={p.name}
            onChange={(e) => setP({ ...p, name: e.target.value })}
          />
        </Field>
        <div className="flex flex-wrap gap-2">
          <Field label="Command">
            <Select
              aria-label="Command"
              value={p.command}
              onChange={(e) => setP({ ...p, command: e.target.value as Command })}
            >
              {COMMANDS.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </Select>
          </Field>
          <Field label="Roles (comma separated; empty: public)">
            <Input
              aria-label="Roles"
              value={p.roles.join(', ')}
              onChange={(e) =>
                setP({
                  ...p,
                  roles: e.target.value
                    .split(',')
                    .map((r) => r.trim())
                    .filter(Boolean),
                })
              }
            />
          </Field>
          <label className="flex items-center gap-1 self-end text-xs">
            <input
              type="checkbox"
              checked={!p.permissive}
              onChange={(e) => setP({ ...p, permissive: !e.target.checked })}
            />{' '}
            Restrictive
          </label>
        </div>
        <Field label="USING (rows it lets through)">
          <Input
            aria-label="USING"
            value={p.using}
            onChange={(e) => setP({ ...p, using: e.target.value })}
            className="font-mono"
          />
        </Field>
        <Field label="WITH CHECK (new rows it accepts)">
          <Input
            aria-label="WITH CHECK"
            value={p.check}
            onChange={(e) => setP({ ...p, check: e.target.value })}
            className="font-mono"
          />
        </Field>
      </div>
      <SqlPreview
        built={built}
        label={editing ? 'Save policy' : 'Create policy'}
        onDone={() => {
          onOpenChange(false)
          onDone()
        }}
      />
    </Dialog>
  )
}

interface Diff {
  sql: string
  drops: string[]
}

/** `db diff -f`: what the local database has that the migrations do not, saved as a migration. */
export function SaveMigration({
  open,
  onOpenChange,
}: {
  open: boolean
  onOpenChange: (o: boolean) => void
}) {
  const qc = useQueryClient()
  const [name, setName] = useState('studio_changes')
  const diff = useQuery({
    queryKey: ['migration-diff'],
    enabled: open,
    gcTime: 0,
    queryFn: () => api<Diff>('/migrations/diff'),
  })
  const save = useMutation({
    mutationFn: () => api<{ path: string }>('/migrations', { method: 'POST', json: { name } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['migration-diff'] }),
  })
  return (
    <Dialog
      open={open}
      onOpenChange={(o) => {
        onOpenChange(o)
        if (!o) save.reset()
      }}
      title="Save as a migration"
      description="db diff: the SQL that turns the schema the migrations build into the local database's."
    >
      {diff.isLoading ? (
        <p className="text-muted-foreground">Diffing with the migrations…</p>
      ) : null}
      <ErrorNote error={diff.error} />
      {diff.data && !diff.data.sql.trim() ? (
        <p>No schema changes found: the migrations already build this database.</p>
      ) : null}
      {diff.data?.sql.trim() ? (
        <pre
          role="region"
          aria-label="Migration SQL"
          className="max-h-72 overflow-auto whitespace-pre-wrap rounded-md border border-border bg-muted p-2 font-mono text-xs"
        >
          {diff.data.sql}
        </pre>
      ) : null}
      {diff.data?.drops.length ? (
        <p className="mt-2 rounded-md bg-amber-50 p-2 text-amber-900">
          It drops: {diff.data.drops.join(' ')}
        </p>
      ) : null}
      {save.data ? (
        <p role="status" className="mt-3 rounded-md bg-emerald-50 p-2 text-emerald-900">
          Created {save.data.path}
        </p>
      ) : (
        <div className="mt-3 flex items-end gap-2">
          <Field label="Migration name">
            <Input
              aria-label="Migration name"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          </Field>
          <Button onClick={() => save.mutate()} disabled={!diff.data?.sql.trim() || save.isPending}>
            Save migration
          </Button>
        </div>
      )}
      <ErrorNote error={save.error} />
    </Dialog>
  )
}
