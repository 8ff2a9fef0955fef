import { describe, expect, it } from 'vitest'
import { foreignKeyOf, searchFilter } from './FkPicker'
import type { Relation } from './types'

describe('the foreign-key picker', () => {
  it('searches text by substring and other types by equality, bounded', () => {
    expect(searchFilter('name', 'text', ' rose ')).toEqual([['name', 'ilike.*rose*']])
    expect(searchFilter('slug', 'character varying(40)', 'a')).toEqual([['slug', 'ilike.*a*']])
    expect(searchFilter('id', 'uuid', '7f0c')).toEqual([['id', 'eq.7f0c']])
    expect(searchFilter('id', 'bigint', '')).toEqual([])
    expect(searchFilter('name', 'text', 'x'.repeat(500))[0][1]).toBe(`ilike.*${'x'.repeat(200)}*`)
  })

  it("finds a column's single-column foreign key only", () => {
    const rel = (columns: string[], outgoing = true): Relation => ({
      name: 'k',
      columns,
      schema: 'public',
      table: 't',
      foreign_columns: columns.map(() => 'id'),
      outgoing,
    })
    expect(foreignKeyOf([rel(['product_id'])], 'product_id')?.table).toBe('t')
    expect(foreignKeyOf([rel(['product_id'], false)], 'product_id')).toBeUndefined()
    expect(foreignKeyOf([rel(['a', 'b'])], 'a')).toBeUndefined()
    expect(foreignKeyOf([rel(['a'])], 'b')).toBeUndefined()
  })
})
