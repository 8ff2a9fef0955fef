import { describe, expect, it } from 'vitest'
import {
  KEPT,
  NO_FILTERS,
  emptyNote,
  errorOf,
  filtered,
  listPath,
  matches,
  merge,
  statusProblem,
  type RequestFilters,
  type RequestSummary,
} from './filters'

const req = (seq: number, over: Partial<RequestSummary> = {}): RequestSummary => ({
  seq,
  id: `r${seq}`,
  at: '2026-11-28T12:00:00.000Z',
  method: 'GET',
  path: '/rest/v1/todos?select=*',
  status: 200,
  ms: 1,
  service: 'rest',
  role: 'anon',
  sub: null,
  ...over,
})

describe('request filters', () => {
  it('become the listing query string, empty ones left out', () => {
    expect(listPath(NO_FILTERS)).toBe('/logs/requests?limit=100')
    expect(
      listPath(
        { status: '4xx', path: ' /rest/v1/to dos ', role: 'anon', user: '', service: 'rest' },
        42,
        10,
      ),
    ).toBe(
      '/logs/requests?status=4xx&path=%2Frest%2Fv1%2Fto+dos&role=anon&service=rest&before=42&limit=10',
    )
  })

  it('say when a status is not one', () => {
    const cases: [string, boolean][] = [
      ['', true],
      ['404', true],
      ['4xx', true],
      ['5XX', true],
      ['error', true],
      ['6xx', false],
      ['99', false],
      ['600', false],
      ['4x', false],
      ['bad', false],
    ]
    for (const [s, ok] of cases) expect(statusProblem(s) === null, s).toBe(ok)
  })

  it('keep live requests as the API keeps listed ones', () => {
    const f = (over: Partial<RequestFilters>): RequestFilters => ({ ...NO_FILTERS, ...over })
    const cases: [Partial<RequestFilters>, Partial<RequestSummary>, boolean][] = [
      [{}, {}, true],
      [{ status: '4xx' }, { status: 404 }, true],
      [{ status: '4xx' }, { status: 500 }, false],
      [{ status: 'error' }, { status: 500 }, true],
      [{ status: 'error' }, { status: 302 }, false],
      [{ status: '401' }, { status: 401 }, true],
      [{ status: '401' }, { status: 403 }, false],
      [{ path: 'TODOS' }, {}, true],
      [{ path: 'notes' }, {}, false],
      [{ role: 'authenticated' }, { role: 'Authenticated' }, true],
      [{ role: 'auth' }, { role: 'authenticated' }, false],
      [{ role: 'anon' }, { role: null }, false],
      [{ user: 'abc' }, { sub: 'x-ABC-1' }, true],
      [{ user: 'abc' }, { sub: null }, false],
      [{ service: 'auth' }, { service: 'rest' }, false],
      [{ service: 'rest' }, {}, true],
    ]
    for (const [filters, event, kept] of cases)
      expect(matches(f(filters), req(1, event)), JSON.stringify([filters, event])).toBe(kept)
  })

  it('merge new requests in once, newest first, bounded', () => {
    const shown = [req(3), req(2), req(1)]
    expect(merge(shown, [req(4), req(3)]).map((e) => e.seq)).toEqual([4, 3, 2, 1])
    const many = Array.from({ length: KEPT + 10 }, (_, i) => req(i + 1))
    const merged = merge([], many)
    expect(merged).toHaveLength(KEPT)
    expect(merged[0].seq).toBe(KEPT + 10)
  })

  it('read an error as a listing or a live event gives it', () => {
    expect(errorOf(req(1))).toBe('')
    expect(errorOf(req(1, { error: 'permission denied' }))).toBe('permission denied')
    expect(errorOf(req(1, { error: { code: '42501', message: 'permission denied' } }))).toBe(
      '42501 permission denied',
    )
  })

  it('say why nothing is shown: filters that keep nothing, nothing yet, or the history off', () => {
    const url = 'http://127.0.0.1:54321'
    expect(filtered(NO_FILTERS)).toBe(false)
    expect(filtered({ ...NO_FILTERS, path: '   ' })).toBe(false)
    expect(filtered({ ...NO_FILTERS, role: 'anon' })).toBe(true)
    expect(emptyNote({ ...NO_FILTERS, status: '4xx' }, 2000, url)).toBe(
      'No request matches these filters.',
    )
    const none = emptyNote(NO_FILTERS, 2000, url)
    expect(none).toContain('No requests yet.')
    expect(none).toContain(`${url}/rest/v1/`)
    expect(none).not.toContain('history is off')
    expect(emptyNote(NO_FILTERS, 0, url)).toContain('The history is off (--request-history 0)')
  })
})
