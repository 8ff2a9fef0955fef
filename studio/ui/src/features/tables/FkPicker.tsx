import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { api, query } from '@/lib/api'
import { Button } from '@/components/ui/button'
import { Field, Input, Select } from '@/components/ui/input'
import { ErrorNote } from '@/components/ErrorNote'
import { tablePath, type Relation, type RowPage, type TableInfo } from './types'

/** Rows the picker shows at once. */
export const PICK_PAGE = 20
/** What a search holds at most (a filter value, not a document). */
export const MAX_SEARCH = 200

/** Types a search matches by substring (ilike); any other type by equality. */
const TEXTUAL = /^(text|character varying|character|varchar|citext|name)\b/

/** The filter a search makes on one column: PostgREST's ilike with its `*` wildcards, or eq. */
export function searchFilter(column: string, dataType: string, term: string): [string, string][] {
  const t = term.trim().slice(0, MAX_SEARCH)
  if (!t) return []
  // `*` is ilike's wildcard here; a `*` typed in the search is a wildcard too, as in the grid's filters.
  return [[column, TEXTUAL.test(dataType) ? `ilike.*${t}*` : `eq.${t}`]]
}

/** The single-column foreign key a column has, if any (a picker for composite keys would need every part). */
export function foreignKeyOf(relations: Relation[], column: string): Relation | undefined {
  return relations.find((r) => r.outgoing && r.columns.length === 1 && r.columns[0] === column)
}

/** The referenced table's rows, searchable by one of its columns and paged; a click picks a row's key. */
export function FkPicker({
  relation,
  onPick,
}: {
  relation: Relation
  onPick: (value: string) => void
}) {
  const key = relation.foreign_columns[0]
  const target = useQuery({
    queryKey: ['table', relation.schema, relation.table],
    queryFn: () => api<TableInfo>(`/tables/${tablePath(relation.schema, relation.table)}`),
  })
  const columns = target.data?.columns ?? []
  const firstText = columns.find((c) => TEXTUAL.test(c.data_type))?.name
  const [by, setBy] = useState<string | null>(null)
  const [term, setTerm] = useState('')
  const [offset, setOffset] = useState(0)
  const searchColumn = by ?? firstText ?? key
  const type = columns.find((c) => c.name === searchColumn)?.data_type ?? 'text'
  const pairs: [string, string][] = [
    ...searchFilter(searchColumn, type, term),
    ['limit', String(PICK_PAGE)],
    ['offset', String(offset)],
  ]
  const rows = useQuery({
    queryKey: ['fk-rows', relation.schema, relation.table, pairs],
    enabled: !!target.data,
    queryFn: () =>
      api<RowPage>(`/rows/${tablePath(relation.schema, relation.table)}${query(pairs)}`),
  })
  const shown = columns.slice(0, 4).map((c) => c.name)
  if (!shown.includes(key)) shown.unshift(key)
  return (
    <div
      role="group"
      aria-label={`Rows of ${relation.table}`}
      className="rounded-md border border-border p-2"
    >
      <div className="flex flex-wrap items-end gap-2">
        <Field label="Search in">
          <Select
            aria-label="Search in"
            value={searchColumn}
            onChange={(e) => {
              setBy(e.target.value)
              setOffset(0)
            }}
          >
            {columns.map((c) => (
              <option key={c.name}>{c.name}</option>
            ))}
          </Select>
        </Field>
        <Field label="Search">
          <Input
            aria-label={`Search ${relation.table}`}
            maxLength={MAX_SEARCH}
            value={term}
            onChange={(e) => {
              setTerm(e.target.value)
              setOffset(0)
            }}
          />
        </Field>
      </div>
      <ErrorNote error={target.error ?? rows.error} />
      <table className="mt-2 w-full border-collapse text-left text-xs">
        <caption className="sr-only">Rows of {relation.table} to pick from</caption>
        <thead className="bg-muted">
          <tr>
            <th scope="col" className="px-2 py-1">
              <span className="sr-only">Pick</span>
            </th>
            {shown.map((c) => (
              <th key={c} scope="col" className="px-2 py-1 font-semibold">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.data?.rows.map((r, i) => (
            <tr key={i}>
              <td className="px-2 py-1">
                <Button
                  type="button"
                  size="sm"
                  variant="outline"
                  aria-label={`Pick ${String(r[key])}`}
                  onClick={() => onPick(String(r[key]))}
                >
                  Pick
                </Button>
              </td>
              {shown.map((c) => (
                <td key={c} className="max-w-40 truncate px-2 py-1 font-mono">
                  {r[c] === null
                    ? 'NULL'
                    : typeof r[c] === 'object'
                      ? JSON.stringify(r[c])
                      : String(r[c])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {rows.data?.rows.length === 0 ? (
        <p className="p-2 text-muted-foreground">No row of {relation.table} matches.</p>
      ) : null}
      <div className="mt-2 flex items-center gap-2 text-xs">
        <Button
          type="button"
          size="sm"
          variant="ghost"
          disabled={offset === 0}
          onClick={() => setOffset(Math.max(0, offset - PICK_PAGE))}
        >
          Previous
        </Button>
        <span>
          {rows.data
            ? `${rows.data.count === 0 ? 0 : offset + 1}–${offset + rows.data.rows.length} of ${rows.data.exact ? '' : '≈'}${rows.data.count}`
            : ''}
        </span>
        <Button
          type="button"
          size="sm"
          variant="ghost"
          disabled={!rows.data || offset + PICK_PAGE >= rows.data.count}
          onClick={() => setOffset(offset + PICK_PAGE)}
        >
          Next
        </Button>
      </div>
    </div>
  )
}
