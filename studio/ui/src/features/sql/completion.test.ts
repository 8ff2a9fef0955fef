import { describe, expect, it } from 'vitest'
import { EditorState } from '@codemirror/state'
import { CompletionContext, type CompletionResult } from '@codemirror/autocomplete'
import { PostgreSQL, schemaCompletionSource } from '@codemirror/lang-sql'
import { errorSpan, functionSource, namespace, offsetOf, toCsv, toJson } from './completion'
import { closeTab, newTab } from './tabs'

const tables = [
  { schema: 'public', name: 'products', kind: 'table' },
  { schema: 'public', name: 'top_products', kind: 'view' },
  { schema: 'auth', name: 'users', kind: 'table' },
]
const columns = [
  { schema: 'public', table: 'products', name: 'id', data_type: 'bigint' },
  { schema: 'public', table: 'products', name: 'name', data_type: 'text' },
  { schema: 'auth', table: 'users', name: 'email', data_type: 'character varying(255)' },
  { schema: 'gone', table: 'x', name: 'y', data_type: 'int' },
]
const functions = [
  { schema: 'public', name: 'request_options', arguments: 'n integer', returns: 'text' },
  { schema: 'auth', name: 'uid', arguments: '', returns: 'uuid' },
]

/** The labels a source offers with the cursor at the end of `doc`. */
async function offered(source: ReturnType<typeof functionSource>, doc: string, explicit = false) {
  const state = EditorState.create({ doc, extensions: [PostgreSQL.language] })
  const r = (await source(
    new CompletionContext(state, doc.length, explicit),
  )) as CompletionResult | null
  return r ? { from: r.from, labels: r.options.map((o) => o.label) } : null
}

describe('completion from the catalog', () => {
  const ns = namespace(['public', 'auth', 'storage'], tables, columns)
  const source = schemaCompletionSource({
    dialect: PostgreSQL,
    schema: ns,
    defaultSchema: 'public',
  })

  it('offers public tables bare, schemas, and other schemas qualified', async () => {
    const bare = await offered(source, 'select * from pro')
    expect(bare?.labels).toEqual(
      expect.arrayContaining(['products', 'top_products', 'auth', 'storage']),
    )
    expect(bare?.labels).not.toContain('users')
    const qualified = await offered(source, 'select * from auth.us')
    expect(qualified?.labels).toEqual(['users'])
  })

  it("offers a table's columns after its name", async () => {
    expect((await offered(source, 'select products.'))?.labels).toEqual(['id', 'name'])
    expect((await offered(source, 'select auth.users.'))?.labels).toEqual(['email'])
  })

  it('offers functions of the search path, or of the schema named', async () => {
    const f = functionSource(functions)
    expect((await offered(f, 'select request_'))?.labels).toEqual(['request_options'])
    const q = await offered(f, 'select auth.u')
    expect(q).toEqual({ from: 'select auth.'.length, labels: ['uid'] })
    expect(await offered(f, 'select ')).toBeNull()
    expect((await offered(f, 'select ', true))?.labels).toEqual(['request_options'])
  })
})

describe('error positions', () => {
  it("turns PostgreSQL's line and column into an editor offset", () => {
    const q = 'select 1;\nselect nme from products'
    expect(offsetOf(q, 2, 8)).toBe(q.indexOf('nme'))
    expect(offsetOf(q, 1, 1)).toBe(0)
    expect(offsetOf(q, 9, 1)).toBe(q.length)
    expect(offsetOf(q, 1, 99)).toBe(q.indexOf('\n'))
    // Columns count characters: an astral character is two UTF-16 units.
    expect(offsetOf('select \u{1F600}, nope', 1, 11)).toBe('select \u{1F600}, '.length)
  })

  it('marks the word, the quoted name, or one character', () => {
    expect(errorSpan('select nme from x', 7)).toEqual({ from: 7, to: 10 })
    expect(errorSpan('select "My ""col""" from x', 7)).toEqual({ from: 7, to: 19 })
    expect(errorSpan('select (', 7)).toEqual({ from: 7, to: 8 })
    expect(errorSpan('select', 6)).toEqual({ from: 5, to: 6 })
  })
})

describe('exports', () => {
  it('writes CSV as RFC 4180 and JSON as objects', () => {
    const cols = ['a', 'b']
    const rows = [
      ['1', null],
      ['x,"y"', ' pad'],
    ]
    expect(toCsv(cols, rows)).toBe('a,b\r\n1,\r\n"x,""y"""," pad"\r\n')
    expect(JSON.parse(toJson(cols, rows))).toEqual([
      { a: '1', b: null },
      { a: 'x,"y"', b: ' pad' },
    ])
  })
})

describe('tabs', () => {
  it('names new tabs and picks a neighbour when one closes', () => {
    const one = [{ id: 1, name: 'Query 1', sql: '' }]
    const two = [...one, newTab(one)]
    expect(two[1]).toEqual({ id: 2, name: 'Query 2', sql: '' })
    expect(newTab(two, 'orders', 'select 1')).toEqual({ id: 3, name: 'orders', sql: 'select 1' })
    expect(closeTab(two, 2, 2)).toEqual({ tabs: one, active: 1 })
    expect(closeTab(two, 1, 2).active).toBe(2)
    expect(closeTab(one, 1, 1).tabs).toBe(one)
  })
})
