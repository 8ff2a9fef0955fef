import { useState } from 'react'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api'
import { Button } from '@/components/ui/button'
import { Field, Input, Select } from '@/components/ui/input'
import { Badge } from '@/components/ui/badge'
import { ErrorNote } from '@/components/ErrorNote'
import { HeadRow } from '@/components/ValueTable'
import { ChangeDialog } from './SchemaDialogs'
import {
  addEnumValue,
  createEnum,
  createIndex,
  dropEnum,
  dropIndex,
  INDEX_METHODS,
  MAX_INDEX_COLUMNS,
  renameEnumValue,
} from './ddl'
import type { Index, TableInfo } from './types'

function built(f: () => string) {
  try {
    return { sql: f(), error: null }
  } catch (e) {
    return { sql: '', error: e instanceof Error ? e.message : String(e) }
  }
}

/** The index methods this database has (the catalog's list; PostgreSQL's own while it loads). */
function useMethods() {
  const q = useQuery({
    queryKey: ['database', 'index_methods', ''],
    queryFn: () => api<{ name: string }[]>('/database/index_methods?schema='),
  })
  return q.data?.map((m) => m.name) ?? INDEX_METHODS
}

/** A table's indexes: listed, made (columns, unique, method, predicate) and dropped, each as its SQL first. */
export function IndexesTab({ info, onChanged }: { info: TableInfo; onChanged: () => void }) {
  const methods = useMethods()
  const [creating, setCreating] = useState(false)
  const [dropping, setDropping] = useState<Index | null>(null)
  const [name, setName] = useState('')
  const [columns, setColumns] = useState<string[]>([])
  const [unique, setUnique] = useState(false)
  const [method, setMethod] = useState('btree')
  const [where, setWhere] = useState('')
  const isTable =
    info.kind === 'table' || info.kind === 'partitioned table' || info.kind === 'materialized view'
  const spec = { schema: info.schema, table: info.name, name, columns, unique, method, where }
  return (
    <div className="space-y-3">
      {isTable ? (
        <Button
          size="sm"
          onClick={() => {
            setName('')
            setColumns([])
            setUnique(false)
            setMethod('btree')
            setWhere('')
            setCreating(true)
          }}
        >
          New index
        </Button>
      ) : null}
      {info.indexes.length === 0 ? (
        <p className="text-muted-foreground">
          No indexes on {info.name}. An index on the columns your filters use makes them fast.
        </p>
      ) : null}
      {info.indexes.length ? (
        <table className="w-full border-collapse text-left text-xs">
          <caption className="sr-only">Indexes</caption>
          <thead className="bg-muted">
            <HeadRow headings={['index', 'method', 'columns', 'where', '']} />
          </thead>
          <tbody>
            {info.indexes.map((x) => (
              <tr key={x.name}>
                <td className="border-b border-border px-2 py-1 font-mono">
                  {x.name}{' '}
                  {x.primary ? <Badge>primary key</Badge> : x.unique ? <Badge>unique</Badge> : null}
                </td>
                <td className="border-b border-border px-2 py-1 font-mono">{x.method}</td>
                <td className="border-b border-border px-2 py-1 font-mono">
                  {x.columns.join(', ')}
                </td>
                <td className="border-b border-border px-2 py-1 font-mono">{x.predicate ?? ''}</td>
                <td className="border-b border-border px-2 py-1">
                  <Button
                    size="sm"
                    variant="ghost"
                    aria-label={`Drop index ${x.name}`}
                    onClick={() => setDropping(x)}
                  >
                    Drop
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {creating ? (
        <ChangeDialog
          open
          onOpenChange={setCreating}
          title={`New index on ${info.name}`}
          label="Create index"
          built={built(() => createIndex(spec))}
          onDone={onChanged}
        >
          <div className="flex flex-col gap-3">
            <fieldset className="rounded-md border border-border p-2">
              <legend className="px-1 text-xs text-muted-foreground">Columns, in order</legend>
              <div className="flex flex-wrap gap-3">
                {info.columns.map((c) => (
                  <label key={c.name} className="flex items-center gap-1 text-xs">
                    <input
                      type="checkbox"
                      checked={columns.includes(c.name)}
                      disabled={!columns.includes(c.name) && columns.length >= MAX_INDEX_COLUMNS}
                      onChange={(e) =>
                        setColumns(
                          e.target.checked
                            ? [...columns, c.name]
                            : columns.filter((n) => n !== c.name),
                        )
                      }
                    />
                    {c.name}
                  </label>
                ))}
              </div>
            </fieldset>
            <div className="flex flex-wrap items-end gap-2">
              <Field label="Method">
                <Select
                  aria-label="Index method"
                  value={method}
                  onChange={(e) => setMethod(e.target.value)}
                >
                  {methods.map((m) => (
                    <option key={m}>{m}</option>
                  ))}
                </Select>
              </Field>
              <Field label="Name (empty: PostgreSQL names it)">
                <Input
                  aria-label="Index name"
                  value={name}
                  onChange={(e) => setName(e.target.value)}
                />
              </Field>
              <label className="flex items-center gap-1 self-end text-xs">
                <input
                  type="checkbox"
                  checked={unique}
                  onChange={(e) => setUnique(e.target.checked)}
                />{' '}
                Unique
              </label>
            </div>
            <Field label="WHERE (a partial index; optional)">
              <Input
                aria-label="Index predicate"
                value={where}
                onChange={(e) => setWhere(e.target.value)}
                className="font-mono"
              />
            </Field>
          </div>
        </ChangeDialog>
      ) : null}
      {dropping ? (
        <ChangeDialog
          open
          onOpenChange={(o) => !o && setDropping(null)}
          title={
            dropping.constraint
              ? `Drop ${dropping.name} and the constraint it backs`
              : `Drop index ${dropping.name}`
          }
          label="Drop"
          built={built(() => dropIndex(info.schema, info.name, dropping.name, dropping.constraint))}
          onDone={onChanged}
        />
      ) : null}
    </div>
  )
}

interface EnumType {
  schema: string
  name: string
  values: string[]
  columns: number
}

type EnumChange =
  | { kind: 'create' }
  | { kind: 'add' | 'drop'; type: EnumType }
  | { kind: 'rename'; type: EnumType; value: string }

/** A schema's enums: listed, made, a value added or renamed, dropped; each as its SQL first. */
export function EnumsView({ schema }: { schema: string }) {
  const qc = useQueryClient()
  const list = useQuery({
    queryKey: ['database', 'enums', schema],
    queryFn: () => api<EnumType[]>(`/database/enums?schema=${encodeURIComponent(schema)}`),
  })
  const [change, setChange] = useState<EnumChange | null>(null)
  const [name, setName] = useState('')
  const [text, setText] = useState('')
  const [place, setPlace] = useState('')
  const changed = () => {
    qc.invalidateQueries({ queryKey: ['database', 'enums', schema] })
    qc.invalidateQueries({ queryKey: ['sql-catalog'] })
  }
  const values = () =>
    text
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean)
  const sql = () => {
    if (!change) return ''
    switch (change.kind) {
      case 'create':
        return createEnum(schema, name, values())
      case 'add': {
        // `BEFORE:<value>` or `AFTER:<value>` (the value may hold a colon), or '' for last.
        const colon = place.indexOf(':')
        const at =
          colon > 0
            ? { where: place.slice(0, colon) as 'BEFORE' | 'AFTER', value: place.slice(colon + 1) }
            : null
        return addEnumValue(schema, change.type.name, text, at)
      }
      case 'rename':
        return renameEnumValue(schema, change.type.name, change.value, text)
      case 'drop':
        return dropEnum(schema, change.type.name)
    }
  }
  const title = !change
    ? ''
    : change.kind === 'create'
      ? `New enum in ${schema}`
      : change.kind === 'add'
        ? `Add a value to ${change.type.name}`
        : change.kind === 'rename'
          ? `Rename ${change.type.name}'s value ${change.value}`
          : `Drop enum ${change.type.name}`
  return (
    <div className="space-y-3 p-5">
      <h2 className="text-lg font-semibold">Enums in {schema}</h2>
      <Button
        size="sm"
        onClick={() => {
          setName('')
          setText('')
          setChange({ kind: 'create' })
        }}
      >
        New enum
      </Button>
      <ErrorNote error={list.error} />
      {list.data?.length === 0 ? (
        <p className="text-muted-foreground">
          No enums in {schema}. An enum is a type whose values are a fixed list: make one, then use
          it as a column's type.
        </p>
      ) : null}
      {list.data?.map((t) => (
        <article
          key={t.name}
          aria-label={`Enum ${t.name}`}
          className="rounded-md border border-border bg-panel p-3"
        >
          <h3 className="flex items-center gap-2 font-medium">
            <span className="font-mono">{t.name}</span>
            <span className="text-xs text-muted-foreground">
              used by {t.columns} column{t.columns === 1 ? '' : 's'}
            </span>
          </h3>
          <ul className="mt-2 flex flex-wrap gap-1">
            {t.values.map((v) => (
              <li key={v}>
                <Button
                  size="sm"
                  variant="outline"
                  className="font-mono"
                  aria-label={`Rename value ${v} of ${t.name}`}
                  onClick={() => {
                    setText(v)
                    setChange({ kind: 'rename', type: t, value: v })
                  }}
                >
                  {v}
                </Button>
              </li>
            ))}
          </ul>
          <span className="mt-2 flex gap-1">
            <Button
              size="sm"
              variant="ghost"
              aria-label={`Add a value to ${t.name}`}
              onClick={() => {
                setText('')
                setPlace('')
                setChange({ kind: 'add', type: t })
              }}
            >
              Add value
            </Button>
            <Button
              size="sm"
              variant="ghost"
              aria-label={`Drop enum ${t.name}`}
              onClick={() => setChange({ kind: 'drop', type: t })}
            >
              Drop
            </Button>
          </span>
        </article>
      ))}
      {change ? (
        <ChangeDialog
          open
          onOpenChange={(o) => !o && setChange(null)}
          title={title}
          label={
            change.kind === 'create'
              ? 'Create enum'
              : change.kind === 'add'
                ? 'Add value'
                : change.kind === 'rename'
                  ? 'Rename value'
                  : 'Drop'
          }
          built={built(sql)}
          onDone={changed}
        >
          {change.kind === 'create' ? (
            <div className="flex flex-col gap-3">
              <Field label="Enum name">
                <Input
                  aria-label="Enum name"
                  value={name}
                  onChange={(e) => setName(e.target.value)}
                />
              </Field>
              <Field label="Values (comma separated, in order)">
                <Input
                  aria-label="Enum values"
                  value={text}
                  onChange={(e) => setText(e.target.value)}
                />
              </Field>
            </div>
          ) : null}
          {change.kind === 'add' ? (
            <div className="flex flex-wrap items-end gap-2">
              <Field label="New value">
                <Input
                  aria-label="New value"
                  value={text}
                  onChange={(e) => setText(e.target.value)}
                />
              </Field>
              <Field label="Place">
                <Select aria-label="Place" value={place} onChange={(e) => setPlace(e.target.value)}>
                  <option value="">last</option>
                  {change.type.values.map((v) => (
                    <option key={`b${v}`} value={`BEFORE:${v}`}>
                      before {v}
                    </option>
                  ))}
                  {change.type.values.map((v) => (
                    <option key={`a${v}`} value={`AFTER:${v}`}>
                      after {v}
                    </option>
                  ))}
                </Select>
              </Field>
            </div>
          ) : null}
          {change.kind === 'rename' ? (
            <Field label="New value">
              <Input
                aria-label="New value"
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
