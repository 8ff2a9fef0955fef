import { describe, expect, it, vi } from 'vitest'
import {
  importSummary,
  missingColumnsMessage,
  parseImportCsv,
  statusLabel,
  type ImportResult,
} from '@/features/import/csv'
import {
  SIDEBAR_COOKIE_MAX_AGE,
  isToggleShortcut,
  readSidebarCookie,
  sidebarCookie,
} from '@/admin/sidebarState'
import { signUpErrorMessage } from '@/features/auth/AuthPage'
import { isObjectPath } from '@/lib/images'
import { productRow } from '@/features/products/api'
import { productDefaults } from '@/features/products/schema'
import { describeError } from '@/lib/errors'
import { receivedAgo } from '@/features/requests/api'

describe('CSV import parsing', () => {
  it('reads plain files the way a comma split would', () => {
    const r = parseImportCsv(
      'product_sku,product_internal_id,product_name\nA-1,100,Rose\nB-2,200,Lily\n',
    )
    expect(r.missingColumns).toEqual([])
    expect(r.rows).toEqual([
      { sku: 'A-1', productInternalId: '100', name: 'Rose' },
      { sku: 'B-2', productInternalId: '200', name: 'Lily' },
    ])
  })
  it('handles quotes, commas inside quotes, CRLF, a BOM and header case', () => {
    const text =
      '\uFEFFProduct_Name,PRODUCT_SKU,product_internal_id\r\n"Roses, red ""long""",R-1,7\r\n'
    expect(parseImportCsv(text).rows).toEqual([
      { sku: 'R-1', productInternalId: '7', name: 'Roses, red "long"' },
    ])
  })
  it('skips rows missing the sku or the id and counts them', () => {
    const r = parseImportCsv('product_sku,product_internal_id\nA,1\n,2\nB,\n  ,  \nC,3\n')
    expect(r.rows.map((x) => x.sku)).toEqual(['A', 'C'])
    expect(r.skipped).toBe(2)
  })
  it('names the missing columns', () => {
    const r = parseImportCsv('sku,name\nA,B\n')
    expect(r.missingColumns).toEqual(['product_sku', 'product_internal_id'])
    expect(missingColumnsMessage(r.missingColumns)).toContain('product_sku, product_internal_id')
    expect(parseImportCsv('product_sku\nA\n').missingColumns).toEqual(['product_internal_id'])
  })
  it('summarises results with the spec texts', () => {
    const r = (status: ImportResult['status']): ImportResult => ({
      sku: 's',
      name: 'n',
      status,
      message: '',
      productInternalId: '1',
    })
    expect(importSummary([r('success'), r('success'), r('error'), r('not_found')])).toEqual([
      'Successfully updated 2 product(s)',
      '1 product(s) failed to update',
      '1 product(s) not found',
    ])
    expect(importSummary([])).toEqual([])
  })
})

describe('sidebar state', () => {
  it('remembers the state in a cookie for 7 days', () => {
    expect(SIDEBAR_COOKIE_MAX_AGE).toBe(604800)
    expect(sidebarCookie(false)).toBe('sidebar_state=false; path=/; max-age=604800; samesite=lax')
    expect(readSidebarCookie('a=1; sidebar_state=false; b=2')).toBe(false)
    expect(readSidebarCookie('sidebar_state=true')).toBe(true)
    expect(readSidebarCookie('other=1')).toBeNull()
  })
  it('toggles with Ctrl+B and Cmd+B only, and not while typing', () => {
    const body = document.body
    expect(isToggleShortcut({ key: 'b', ctrlKey: true, metaKey: false, target: body })).toBe(true)
    expect(isToggleShortcut({ key: 'B', ctrlKey: false, metaKey: true, target: body })).toBe(true)
    expect(isToggleShortcut({ key: 'b', ctrlKey: false, metaKey: false, target: body })).toBe(false)
    expect(isToggleShortcut({ key: 'c', ctrlKey: true, metaKey: false, target: body })).toBe(false)
    for (const tag of ['input', 'textarea', 'select']) {
      expect(
        isToggleShortcut({
          key: 'b',
          ctrlKey: true,
          metaKey: false,
          target: document.createElement(tag),
        }),
      ).toBe(false)
    }
  })
})

describe('auth and upload helpers', () => {
  it('maps sign-up errors to the spec toasts', () => {
    expect(signUpErrorMessage('User already registered')).toBe(
      'This email is already registered. Please sign in instead.',
    )
    expect(signUpErrorMessage('Password should be at least 6 characters.')).toBe(
      'Password should be at least 6 characters.',
    )
    expect(signUpErrorMessage(undefined)).toBe('An error occurred during sign up')
  })
  it('keeps object names, and passes site paths and URLs through', () => {
    expect(isObjectPath('abc-1.png')).toBe(true)
    expect(isObjectPath('/demo/products/roses.svg')).toBe(false)
    expect(isObjectPath('https://cdn.example.com/a.png')).toBe(false)
    expect(isObjectPath('')).toBe(false)
  })
  it('stores No Category and empty optional fields as null', () => {
    const row = productRow({ ...productDefaults, name: '  Fern ', sku: '', category_id: '' })
    expect(row).toMatchObject({
      name: 'Fern',
      sku: null,
      category_id: null,
      ecwid_product_id: null,
      is_available: true,
    })
  })
})

describe('import results and service errors', () => {
  it('labels each status in words', () => {
    expect(statusLabel).toEqual({ success: 'Updated', not_found: 'Not found', error: 'Failed' })
  })
  it('turns unique violations into a sentence naming the field', () => {
    expect(
      describeError({
        code: '23505',
        message: 'duplicate key value violates unique constraint "products_sku_key"',
      }),
    ).toBe('Another product already uses this SKU. Choose a different one.')
    expect(
      describeError({
        code: '23505',
        message: 'duplicate key value violates unique constraint "categories_slug_key"',
      }),
    ).toContain('slug')
    expect(describeError({ code: '23514', message: 'Please select a size' })).toBe(
      'Please select a size',
    )
    expect(
      describeError({
        code: 'P0001',
        message: 'The shop needs at least one administrator',
        hint: 'Make someone else an administrator first.',
      }),
    ).toBe('The shop needs at least one administrator. Make someone else an administrator first.')
    expect(describeError({ message: 'TypeError: Failed to fetch' })).toMatch(/could not be reached/)
  })
  it('says when a request came in', () => {
    const now = Date.parse('2026-11-22T12:00:00Z')
    expect(receivedAgo('2026-11-22T11:59:40Z', now)).toBe('just now')
    expect(receivedAgo('2026-11-22T11:15:00Z', now)).toBe('45 min ago')
    expect(receivedAgo('2026-11-22T09:00:00Z', now)).toBe('3 hours ago')
    expect(receivedAgo('2026-11-21T10:00:00Z', now)).toBe('yesterday')
    expect(receivedAgo('2026-11-01T10:00:00Z', now)).toMatch(/Nov 1, 2026/)
  })
})

describe('admin saves', () => {
  it('say a save that never gets an answer did not happen, as an unreachable server', async () => {
    const { renderHook, act } = await import('@testing-library/react')
    const { createElement } = await import('react')
    const { QueryClient, QueryClientProvider } = await import('@tanstack/react-query')
    const { useSave, SAVE_TIMEOUT_MS } = await import('@/admin/useSave')
    const client = new QueryClient()
    vi.useFakeTimers()
    try {
      const { result } = renderHook(() => useSave(), {
        wrapper: ({ children }) => createElement(QueryClientProvider, { client }, children),
      })
      let done: Promise<boolean> = Promise.resolve(true)
      act(() => {
        done = result.current.run(() => new Promise(() => {}))
      })
      await act(async () => {
        await vi.advanceTimersByTimeAsync(SAVE_TIMEOUT_MS)
      })
      expect(await done).toBe(false)
      expect(result.current.failure).toBe(
        'The shop could not be reached. Check your connection and try again.',
      )
      // A refusal is not an outage: no failure box (a toast says why).
      await act(async () => {
        expect(
          await result.current.run(async () => ({
            error: { message: 'duplicate', code: '23505' },
          })),
        ).toBe(false)
      })
      expect(result.current.failure).toBeNull()
    } finally {
      vi.useRealTimers()
    }
  })
})
