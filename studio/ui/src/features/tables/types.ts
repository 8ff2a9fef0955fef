export interface TableSummary {
  schema: string
  name: string
  kind: string
  rls_enabled: boolean
  rls_forced: boolean
  rows: number
  exact: boolean
  policies: number
  comment: string | null
}

export interface Column {
  name: string
  data_type: string
  nullable: boolean
  default: string | null
  primary_key: boolean
  generated: boolean
}

export interface Relation {
  name: string
  columns: string[]
  schema: string
  table: string
  foreign_columns: string[]
  outgoing: boolean
}

export interface Policy {
  name: string
  command: string
  permissive: boolean
  roles: string[]
  using: string | null
  check: string | null
}

export interface Index {
  name: string
  definition: string
  unique: boolean
  primary: boolean
  method: string
  columns: string[]
  predicate: string | null
  /** The primary key, unique or exclusion constraint it backs, if any. */
  constraint: string | null
}

export interface TableInfo {
  schema: string
  name: string
  kind: string
  columns: Column[]
  rls_enabled: boolean
  rls_forced: boolean
  relations: Relation[]
  policies: Policy[]
  indexes: Index[]
}

export type Row = Record<string, unknown>

export interface RowPage {
  rows: Row[]
  count: number
  exact: boolean
}

/** PostgREST's operators, as the table editor offers them (any other, typed in the address, works too). */
export const OPERATORS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'like',
  'ilike',
  'match',
  'imatch',
  'is',
  'isdistinct',
  'in',
  'cs',
  'cd',
  'ov',
  'fts',
  'plfts',
  'phfts',
  'wfts',
]

/** The path of a table's API routes. */
export function tablePath(schema: string, name: string) {
  return `${encodeURIComponent(schema)}/${encodeURIComponent(name)}`
}

/** The row's primary key, as the API finds it by. */
export function keyOf(row: Row, columns: Column[]): Row {
  return Object.fromEntries(columns.filter((c) => c.primary_key).map((c) => [c.name, row[c.name]]))
}
