import type {
  Completion,
  CompletionContext,
  CompletionResult,
  CompletionSource,
} from '@codemirror/autocomplete'
import type { SQLNamespace } from '@codemirror/lang-sql'

/** The catalog as Studio's API lists it (`/database/tables`, `/columns`, `/functions`). */
export interface CatalogTable {
  schema: string
  name: string
  kind: string
  comment?: string | null
}
export interface CatalogColumn {
  schema: string
  table: string
  name: string
  data_type: string
}
export interface CatalogFunction {
  schema: string
  name: string
  arguments: string
  returns: string
}

/**
 * The namespace @codemirror/lang-sql completes from: schemas, their tables and views, and each
 * one's columns with its type. Schemas without a listed table still complete (`schemas`).
 */
export function namespace(
  schemas: string[],
  tables: CatalogTable[],
  columns: CatalogColumn[],
): SQLNamespace {
  const bySchema = new Map<string, Map<string, { table: CatalogTable; columns: Completion[] }>>()
  for (const s of schemas) bySchema.set(s, new Map())
  for (const t of tables) {
    if (!bySchema.has(t.schema)) bySchema.set(t.schema, new Map())
    bySchema.get(t.schema)!.set(t.name, { table: t, columns: [] })
  }
  for (const c of columns) {
    const t = bySchema.get(c.schema)?.get(c.table)
    if (t) t.columns.push({ label: c.name, type: 'property', detail: c.data_type })
  }
  const ns: { [name: string]: SQLNamespace } = {}
  for (const [schema, ts] of bySchema) {
    const children: { [name: string]: SQLNamespace } = {}
    for (const [name, { table, columns }] of ts) {
      children[name] = {
        self: {
          label: name,
          type: table.kind.includes('view') ? 'class' : 'type',
          detail: table.kind,
        },
        children: columns,
      }
    }
    ns[schema] = { self: { label: schema, type: 'namespace', detail: 'schema' }, children }
  }
  return ns
}

/**
 * Completes function names: after `schema.` that schema's functions, otherwise those of the
 * schemas on the search path (`public`, `extensions`). Each shows its arguments and result.
 */
export function functionSource(
  functions: CatalogFunction[],
  searchPath: string[] = ['public', 'extensions'],
): CompletionSource {
  return (ctx: CompletionContext): CompletionResult | null => {
    const word = ctx.matchBefore(/(?:"?[\w$]+"?\.)?[\w$]*/)
    if (!word || (word.from === word.to && !ctx.explicit)) return null
    const dot = word.text.lastIndexOf('.')
    const schema = dot >= 0 ? word.text.slice(0, dot).replace(/"/g, '') : null
    const from = dot >= 0 ? word.from + dot + 1 : word.from
    const options: Completion[] = functions
      .filter((f) => (schema === null ? searchPath.includes(f.schema) : f.schema === schema))
      .map((f) => ({
        label: f.name,
        type: 'function',
        detail: `(${f.arguments}) → ${f.returns}`,
        apply: `${f.name}(`,
        boost: -1,
      }))
    if (options.length === 0) return null
    return { from, options, validFor: /^[\w$]*$/ }
  }
}

/**
 * The offset in `text` (UTF-16 units, as the editor counts) of PostgreSQL's line and column
 * (from 1, in characters), clamped to the text.
 */
export function offsetOf(text: string, line: number, column: number): number {
  let offset = 0
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', offset)
    if (nl < 0) return text.length
    offset = nl + 1
  }
  let chars = 1
  while (chars < column && offset < text.length && text[offset] !== '\n') {
    const code = text.codePointAt(offset)!
    offset += code > 0xffff ? 2 : 1
    chars++
  }
  return offset
}

/** The span an error at `offset` marks: the word (or quoted name) there, else one character. */
export function errorSpan(text: string, offset: number): { from: number; to: number } {
  const rest = text.slice(offset)
  const m = /^("(?:[^"]|"")*"|[\w$.]+)/.exec(rest)
  if (m) return { from: offset, to: offset + m[0].length }
  if (offset >= text.length) return { from: Math.max(0, text.length - 1), to: text.length }
  return { from: offset, to: offset + 1 }
}

/** A result set as CSV (RFC 4180: a header, CRLF records, quoted where needed; NULL empty). */
export function toCsv(columns: string[], rows: (string | null)[][]): string {
  const field = (v: string | null) =>
    v === null ? '' : /[",\r\n]/.test(v) || v.trim() !== v ? `"${v.replace(/"/g, '""')}"` : v
  return `${[columns, ...rows].map((r) => r.map(field).join(',')).join('\r\n')}\r\n`
}

/** A result set as a JSON array of objects (values as PostgreSQL's text; NULL as null). */
export function toJson(columns: string[], rows: (string | null)[][]): string {
  return JSON.stringify(
    rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i] ?? null]))),
    null,
    2,
  )
}
