import { describe, expect, it } from 'vitest'
import { formatSql } from './format'

describe('formatSql', () => {
  it('breaks a query into its clauses, keywords as written', () => {
    expect(formatSql('select id,name from products where price>10 order by name')).toEqual({
      ok: true,
      text: 'select\n  id,\n  name\nfrom\n  products\nwhere\n  price > 10\norder by\n  name',
    })
  })

  it('keeps a dollar-quoted body as it was written', () => {
    const body = '$fn$\nbegin\n  NEW.updated_at := now();   return NEW;\nend;\n$fn$'
    const r = formatSql(
      `create function touch() returns trigger language plpgsql as ${body};\nselect 1`,
    )
    expect(r.ok).toBe(true)
    if (r.ok) {
      expect(r.text).toContain(body)
      expect(r.text).toContain('\n\nselect\n  1')
    }
    const plain = formatSql('create function f() returns int as $$ select   1 $$ language sql')
    expect(plain.ok && plain.text).toContain('$$ select   1 $$')
  })

  it('keeps operators, casts and parameters', () => {
    expect(formatSql("select $1::int, x->>'a' from t")).toEqual({
      ok: true,
      text: "select\n  $1::int,\n  x ->> 'a'\nfrom\n  t",
    })
  })

  it('leaves text it cannot read unchanged, with one line of reason', () => {
    for (const bad of ['select (1', "select 'abc"]) {
      const r = formatSql(bad)
      expect(r.ok).toBe(false)
      if (!r.ok) {
        expect(r.message).toMatch(/^Not formatted: Parse error/)
        expect(r.message).not.toContain('\n')
      }
    }
  })

  it('leaves empty text and a final newline as they were', () => {
    expect(formatSql('  ')).toEqual({ ok: true, text: '  ' })
    expect(formatSql('select 1\n')).toEqual({ ok: true, text: 'select\n  1\n' })
  })
})
