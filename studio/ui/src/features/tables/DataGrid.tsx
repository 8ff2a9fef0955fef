import { useState } from 'react'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useSearchParams } from 'react-router-dom'
import { ArrowDown, ArrowUp, Download, Plus, Trash2, X } from 'lucide-react'
import { api, query } from '@/lib/api'
import { cn } from '@/lib/cn'
import { Button } from '@/components/ui/button'
import { Input, Select } from '@/components/ui/input'
import { Dialog } from '@/components/ui/dialog'
import { ErrorNote } from '@/components/ErrorNote'
import { cellText } from '@/components/ValueTable'
import { InsertRow } from './InsertRow'
import {
  OPERATORS,
  keyOf,
  tablePath,
  type Column,
  type Relation,
  type Row,
  type RowPage,
  type TableInfo,
} from './types'
import { FkPicker, foreignKeyOf } from './FkPicker'

const RESERVED = new Set(['limit', 'offset', 'order'])

interface FilterDraft {
  column: string
  op: string
  value: string
}

/** The filters in the address: `col=op.value` (a link from a foreign key lands on them). */
function filtersOf(params: URLSearchParams): FilterDraft[] {
  return [...params.entries()]
    .filter(([k]) => !RESERVED.has(k))
    .map(([column, v]) => {
      const dot = v.indexOf('.')
      const op = v.startsWith('not.') ? v.slice(0, v.indexOf('.', 4)) : v.slice(0, dot)
      return { column, op, value: v.slice(op.length + 1) }
    })
}

export function DataGrid({ info }: { info: TableInfo }) {
  const qc = useQueryClient()
  const [params, setParams] = useSearchParams()
  const limit = Number(params.get('limit') ?? 100)
  const offset = Number(params.get('offset') ?? 0)
  const order = params.get('order') ?? ''
  const filters = filtersOf(params)
  const [drafts, setDrafts] = useState<FilterDraft[]>(filters)
  const [selected, setSelected] = useState<Set<number>>(new Set())
  const [editing, setEditing] = useState<{ row: number; column: string } | null>(null)
  const [inserting, setInserting] = useState(false)
  const [confirmDelete, setConfirmDelete] = useState(false)
  const path = tablePath(info.schema, info.name)
  const pairs: [string, string][] = [
    ...filters.map((f): [string, string] => [f.column, `${f.op}.${f.value}`]),
    ...(order ? [['order', order] as [string, string]] : []),
  ]
  const key = ['rows', info.schema, info.name, params.toString()]
  const page = useQuery({
    queryKey: key,
    queryFn: () =>
      api<RowPage>(
        `/rows/${path}${query([...pairs, ['limit', String(limit)], ['offset', String(offset)]])}`,
      ),
    placeholderData: keepPreviousData,
  })
  const refresh = () => {
    setSelected(new Set())
    qc.invalidateQueries({ queryKey: ['rows', info.schema, info.name] })
    qc.invalidateQueries({ queryKey: ['tables', info.schema] })
  }
  const update = useMutation({
    mutationFn: ({ row, column, value }: { row: Row; column: string; value: string | null }) =>
      api<Row>(`/rows/${path}`, {
        method: 'PATCH',
        json: { key: keyOf(row, info.columns), values: { [column]: value } },
      }),
    onSuccess: () => {
      setEditing(null)
      refresh()
    },
  })
  const remove = useMutation({
    mutationFn: (rows: Row[]) =>
      api<{ deleted: number }>(`/rows/${path}`, {
        method: 'DELETE',
        json: { keys: rows.map((r) => keyOf(r, info.columns)) },
      }),
    onSuccess: () => {
      setConfirmDelete(false)
      refresh()
    },
  })
  const set = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(params)
    for (const [k, v] of Object.entries(changes)) {
      if (v === null) next.delete(k)
      else next.set(k, v)
    }
    setParams(next)
  }
  const applyFilters = (list: FilterDraft[]) => {
    const next = new URLSearchParams()
    for (const f of list) if (f.column) next.append(f.column, `${f.op}.${f.value}`)
    if (order) next.set('order', order)
    if (params.get('limit')) next.set('limit', String(limit))
    setParams(next)
  }
  const sortBy = (column: string) => {
    const next =
      order === `${column}.asc`
        ? `${column}.desc`
        : order === `${column}.desc`
          ? null
          : `${column}.asc`
    set({ order: next, offset: null })
  }
  const hasKey = info.columns.some((c) => c.primary_key)
  const writable = hasKey && (info.kind === 'table' || info.kind === 'partitioned table')
  const outgoing = new Map(
    info.relations
      .filter((r) => r.outgoing && r.columns.length === 1)
      .map((r) => [r.columns[0], r]),
  )
  const rows = page.data?.rows ?? []
  const count = page.data?.count ?? 0
  const csv = `/api/csv/${path}${query(pairs)}`

  return (
    <div className="flex h-full flex-col gap-3">
      <div className="flex flex-wrap items-end gap-2">
        {drafts.map((f, i) => (
          <fieldset
            key={i}
            className="flex items-center gap-1 rounded-md border border-border bg-panel p-1"
          >
            <legend className="sr-only">Filter {i + 1}</legend>
            <Select
              aria-label="Filter column"
              value={f.column}
              onChange={(e) =>
                setDrafts(drafts.map((d, j) => (j === i ? { ...d, column: e.target.value } : d)))
              }
            >
              {info.columns.map((c) => (
                <option key={c.name}>{c.name}</option>
              ))}
            </Select>
            <Select
              aria-label="Filter operator"
              value={f.op}
              onChange={(e) =>
                setDrafts(drafts.map((d, j) => (j === i ? { ...d, op: e.target.value } : d)))
              }
            >
              {[...new Set([...OPERATORS, ...OPERATORS.map((o) => `not.${o}`), f.op])].map((o) => (
                <option key={o}>{o}</option>
              ))}
            </Select>
            <Input
              aria-label="Filter value"
              className="w-40"
              value={f.value}
              placeholder={f.op.endsWith('in') ? '(a,b,c)' : f.op.endsWith('is') ? 'null' : 'value'}
              onChange={(e) =>
                setDrafts(drafts.map((d, j) => (j === i ? { ...d, value: e.target.value } : d)))
              }
              onKeyDown={(e) => e.key === 'Enter' && applyFilters(drafts)}
            />
            <Button
              variant="ghost"
              size="icon"
              aria-label="Remove filter"
              onClick={() => {
                const next = drafts.filter((_, j) => j !== i)
                setDrafts(next)
                applyFilters(next)
              }}
            >
              <X />
            </Button>
          </fieldset>
        ))}
        <Button
          variant="outline"
          size="sm"
          onClick={() =>
            setDrafts([...drafts, { column: info.columns[0]?.name ?? '', op: 'eq', value: '' }])
          }
        >
          <Plus /> Add filter
        </Button>
        {drafts.length > 0 ? (
          <Button size="sm" onClick={() => applyFilters(drafts)}>
            Apply filters
          </Button>
        ) : null}
        <span className="ml-auto flex gap-2">
          {writable ? (
            <Button size="sm" onClick={() => setInserting(true)}>
              <Plus /> Insert row
            </Button>
          ) : null}
          {selected.size > 0 ? (
            <Button size="sm" variant="danger" onClick={() => setConfirmDelete(true)}>
              <Trash2 /> Delete {selected.size} {selected.size === 1 ? 'row' : 'rows'}
            </Button>
          ) : null}
          <Button size="sm" variant="outline" asChild>
            <a href={csv} download={`${info.name}.csv`}>
              <Download /> Export CSV
            </a>
          </Button>
        </span>
      </div>
      {!hasKey && info.kind === 'table' ? (
        <p className="text-xs text-muted-foreground">
          {info.name} has no primary key: rows are read-only here (use the SQL editor to change
          them).
        </p>
      ) : null}
      <ErrorNote error={page.error ?? update.error} />
      <div className="min-h-0 flex-1 overflow-auto rounded-md border border-border bg-panel">
        <table
          className="border-collapse text-left text-xs"
          aria-label={`Rows of ${info.name}`}
          aria-busy={page.isFetching}
        >
          <thead className="sticky top-0 z-10 bg-muted">
            <tr>
              {writable ? (
                <th className="w-8 border-b border-border px-2">
                  <span className="sr-only">Select</span>
                </th>
              ) : null}
              {info.columns.map((c) => (
                <th
                  key={c.name}
                  scope="col"
                  className="border-b border-r border-border px-0 py-0 font-semibold"
                  aria-sort={
                    order === `${c.name}.asc`
                      ? 'ascending'
                      : order === `${c.name}.desc`
                        ? 'descending'
                        : undefined
                  }
                >
                  <button
                    type="button"
                    className="flex w-full items-center gap-1 px-2 py-1.5 text-left hover:bg-slate-200"
                    onClick={() => sortBy(c.name)}
                  >
                    <span>{c.name}</span>
                    <span className="font-normal text-muted-foreground">{c.data_type}</span>
                    {order === `${c.name}.asc` ? (
                      <ArrowUp className="size-3" aria-hidden />
                    ) : order === `${c.name}.desc` ? (
                      <ArrowDown className="size-3" aria-hidden />
                    ) : null}
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr
                key={i}
                className={cn('hover:bg-emerald-50/50', selected.has(i) && 'bg-emerald-50')}
              >
                {writable ? (
                  <td className="border-b border-border px-2">
                    <input
                      type="checkbox"
                      aria-label={`Select row ${offset + i + 1}`}
                      checked={selected.has(i)}
                      onChange={(e) => {
                        const next = new Set(selected)
                        if (e.target.checked) next.add(i)
                        else next.delete(i)
                        setSelected(next)
                      }}
                    />
                  </td>
                ) : null}
                {info.columns.map((c) => (
                  <Cell
                    key={c.name}
                    column={c}
                    value={row[c.name]}
                    editable={writable && !c.generated}
                    editing={editing?.row === i && editing.column === c.name}
                    onEdit={() => setEditing({ row: i, column: c.name })}
                    onCancel={() => setEditing(null)}
                    onSave={(value) => update.mutate({ row, column: c.name, value })}
                    saving={update.isPending}
                    relation={foreignKeyOf(info.relations, c.name)}
                    link={
                      outgoing.has(c.name) && row[c.name] !== null
                        ? `/tables/${tablePath(outgoing.get(c.name)!.schema, outgoing.get(c.name)!.table)}?${new URLSearchParams({ [outgoing.get(c.name)!.foreign_columns[0]]: `eq.${cellText(row[c.name])}` })}`
                        : undefined
                    }
                  />
                ))}
              </tr>
            ))}
          </tbody>
        </table>
        {page.data && rows.length === 0 ? (
          <p className="p-4 text-muted-foreground">
            No rows{filters.length ? ' match the filters' : ''}.
          </p>
        ) : null}
      </div>
      <footer className="flex items-center gap-3 text-xs text-muted-foreground">
        <span aria-live="polite">
          {count === 0
            ? 'No rows'
            : `Rows ${Math.min(offset + 1, count)}–${Math.min(offset + rows.length, count)} of ${page.data?.exact ? '' : '≈'}${count.toLocaleString('en-US')}`}
        </span>
        <Button
          size="sm"
          variant="outline"
          disabled={offset === 0}
          onClick={() => set({ offset: String(Math.max(0, offset - limit)) })}
        >
          Previous
        </Button>
        <Button
          size="sm"
          variant="outline"
          disabled={offset + rows.length >= count}
          onClick={() => set({ offset: String(offset + limit) })}
        >
          Next
        </Button>
        <label className="flex items-center gap-1">
          Rows per page
          <Select
            value={limit}
            onChange={(e) => set({ limit: e.target.value, offset: null })}
            className="h-8"
          >
            {[25, 100, 500, 1000].map((n) => (
              <option key={n}>{n}</option>
            ))}
          </Select>
        </label>
        {writable ? <span className="ml-auto">Double-click a cell to edit it.</span> : null}
      </footer>
      <InsertRow open={inserting} onOpenChange={setInserting} info={info} onInserted={refresh} />
      <Dialog
        open={confirmDelete}
        onOpenChange={setConfirmDelete}
        title={`Delete ${selected.size} ${selected.size === 1 ? 'row' : 'rows'}?`}
        description={`They are deleted from ${info.schema}.${info.name} at once; this cannot be undone.`}
      >
        <ErrorNote error={remove.error} />
        <div className="mt-4 flex justify-end gap-2">
          <Button variant="outline" onClick={() => setConfirmDelete(false)}>
            Cancel
          </Button>
          <Button
            variant="danger"
            disabled={remove.isPending}
            onClick={() => remove.mutate([...selected].map((i) => rows[i]))}
          >
            Delete
          </Button>
        </div>
      </Dialog>
    </div>
  )
}

function Cell({
  column,
  value,
  editable,
  editing,
  onEdit,
  onCancel,
  onSave,
  saving,
  link,
  relation,
}: {
  column: Column
  value: unknown
  editable: boolean
  editing: boolean
  onEdit: () => void
  onCancel: () => void
  onSave: (value: string | null) => void
  saving: boolean
  link?: string
  /** The column's single-column foreign key: its rows can be picked instead of typed. */
  relation?: Relation
}) {
  const [picking, setPicking] = useState(false)
  const [text, setText] = useState(
    value === null || value === undefined
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value),
  )
  if (editing) {
    return (
      <td className="border-b border-r border-border p-0.5">
        <form
          className="flex gap-1"
          onSubmit={(e) => {
            e.preventDefault()
            onSave(text)
          }}
        >
          <Input
            autoFocus
            aria-label={`New ${column.name}`}
            className="h-7 min-w-40 font-mono text-xs"
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => e.key === 'Escape' && onCancel()}
          />
          <Button type="submit" size="sm" disabled={saving}>
            Save
          </Button>
          {relation ? (
            <>
              <Button
                size="sm"
                variant="outline"
                disabled={saving}
                onClick={() => setPicking(true)}
              >
                Pick
              </Button>
              <Dialog
                open={picking}
                onOpenChange={setPicking}
                title={`Pick a row of ${relation.table} for ${column.name}`}
              >
                <FkPicker
                  relation={relation}
                  onPick={(v) => {
                    setPicking(false)
                    onSave(v)
                  }}
                />
              </Dialog>
            </>
          ) : null}
          {column.nullable ? (
            <Button size="sm" variant="outline" disabled={saving} onClick={() => onSave(null)}>
              NULL
            </Button>
          ) : null}
          <Button size="sm" variant="ghost" onClick={onCancel}>
            Cancel
          </Button>
        </form>
      </td>
    )
  }
  const shown = cellText(value)
  return (
    <td
      className={cn(
        'max-w-xs truncate border-b border-r border-border px-2 py-1 font-mono',
        value === null && 'text-slate-400',
      )}
      title={shown}
      onDoubleClick={editable ? onEdit : undefined}
      onKeyDown={editable ? (e) => e.key === 'Enter' && onEdit() : undefined}
      tabIndex={editable ? 0 : undefined}
      aria-label={editable ? `${column.name}: ${shown} (Enter to edit)` : undefined}
    >
      {link ? (
        <Link to={link} className="text-primary underline" title={`Open the referenced row`}>
          {shown}
        </Link>
      ) : (
        shown
      )}
    </td>
  )
}
