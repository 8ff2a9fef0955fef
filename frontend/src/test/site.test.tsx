import { describe, expect, it, vi, beforeEach } from 'vitest'
import { render, screen, waitFor } from '@testing-library/react'
import { MemoryRouter } from 'react-router-dom'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { menuReducer } from '@/site/layout/menuState'
import { mergeProducts, type Product } from '@/features/catalogue/api'
import { formatPrice } from '@/lib/utils'
import { productBrowserSettings } from '@/features/catalogue/storeWidget'
import { reducer as toastReducer, TOAST_LIMIT, TOAST_REMOVE_DELAY } from '@/components/ui/use-toast'

const p = (id: string, name: string): Product => ({
  id,
  name,
  sku: null,
  description: null,
  base_price: 1,
  main_image_url: null,
  category_id: null,
  is_available: true,
  is_featured: false,
  ecwid_product_id: null,
  ecwid_product_slug: null,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
})

describe('listing merge', () => {
  it('merges, removes duplicates by id and sorts by name with a locale-aware comparison', () => {
    const merged = mergeProducts(
      [p('1', 'Zinnia'), p('2', 'azalea')],
      [p('2', 'azalea'), p('3', 'Éclair roses'), p('4', 'Begonia')],
    )
    expect(merged.map((x) => x.name)).toEqual(['azalea', 'Begonia', 'Éclair roses', 'Zinnia'])
  })
})

describe('mobile menu state machine', () => {
  it('closed → opening → open, and a click while open or opening closes at once', () => {
    expect(menuReducer('closed', 'toggle')).toBe('opening')
    expect(menuReducer('opening', 'opened')).toBe('open')
    expect(menuReducer('open', 'toggle')).toBe('closed')
    expect(menuReducer('opening', 'toggle')).toBe('closed')
    expect(menuReducer('closed', 'opened')).toBe('closed')
    expect(menuReducer('open', 'close')).toBe('closed')
  })
})

describe('toasts', () => {
  it('shows one at a time and removes dismissed ones after 1000000 ms', () => {
    expect(TOAST_LIMIT).toBe(1)
    expect(TOAST_REMOVE_DELAY).toBe(1000000)
    let s = toastReducer(
      { toasts: [] },
      { type: 'ADD', toast: { id: '1', title: 'a', open: true } },
    )
    s = toastReducer(s, { type: 'ADD', toast: { id: '2', title: 'b', open: true } })
    expect(s.toasts.map((t) => t.id)).toEqual(['2'])
  })
})

describe('formatting and the store widget', () => {
  it('formats prices with a dollar sign and two decimals', () => {
    expect(formatPrice(5)).toBe('$5.00')
    expect(formatPrice('12.5')).toBe('$12.50')
    expect(formatPrice(null)).toBe('$0.00')
  })
  it('passes the widget settings of the spec', () => {
    expect(productBrowserSettings('c', '42', 'rose')).toEqual([
      'categoriesPerRow=3',
      'views=grid(20,3) list(60) table(60)',
      'categoryView=grid',
      'searchView=list',
      'id=c',
      'defaultProductId=42',
      'defaultSlug=rose',
    ])
  })
})

const fetchProductsForSlug = vi.fn()
vi.mock('@/features/catalogue/api', async (orig) => ({
  ...(await orig<typeof import('@/features/catalogue/api')>()),
  fetchProductsForSlug: (slug?: string) => fetchProductsForSlug(slug),
}))

const queries = new QueryClient({ defaultOptions: { queries: { retry: false } } })
const withQueries = (ui: React.ReactNode) => (
  <QueryClientProvider client={queries}>
    <MemoryRouter>{ui}</MemoryRouter>
  </QueryClientProvider>
)

describe('ProductList states', () => {
  beforeEach(() => {
    fetchProductsForSlug.mockReset()
    queries.clear()
  })

  it('shows loading, then the cards', async () => {
    let resolve!: (v: Product[]) => void
    fetchProductsForSlug.mockReturnValue(new Promise((r) => (resolve = r)))
    const { ProductList } = await import('@/features/catalogue/ProductList')
    render(withQueries(<ProductList categorySlug="plants" />))
    expect(screen.getByText('Loading products...')).toBeInTheDocument()
    resolve([{ ...p('1', 'Fern'), base_price: 12, description: 'Green' }, p('2', 'Ivy')])
    await waitFor(() => expect(screen.getByText('Fern')).toBeInTheDocument())
    expect(screen.getByText('$12.00')).toBeInTheDocument()
    expect(screen.getAllByText('No Image')).toHaveLength(2)
    expect(screen.getByRole('link', { name: 'View Details of Fern' })).toHaveAttribute(
      'href',
      '/product/1',
    )
    expect(fetchProductsForSlug).toHaveBeenCalledWith('plants')
  })

  it('shows the empty message, and reloads when the slug changes', async () => {
    fetchProductsForSlug.mockResolvedValue([])
    const { ProductList } = await import('@/features/catalogue/ProductList')
    const { rerender } = render(withQueries(<ProductList categorySlug="a" />))
    await waitFor(() =>
      expect(screen.getByText('No products available at this time.')).toBeInTheDocument(),
    )
    rerender(withQueries(<ProductList categorySlug="b" />))
    await waitFor(() => expect(fetchProductsForSlug).toHaveBeenLastCalledWith('b'))
  })
})

function Broken(): never {
  throw new Error('boom')
}

describe('route error boundary', () => {
  it('shows the error screen for a page that throws, and tries again at another address', async () => {
    const { RouteErrorBoundary } = await import('@/app/RouteErrorBoundary')
    const { Link, Route, Routes } = await import('react-router-dom')
    const { fireEvent } = await import('@testing-library/react')
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {})
    render(
      <MemoryRouter initialEntries={['/broken']}>
        <RouteErrorBoundary>
          <Routes>
            <Route path="/broken" element={<Broken />} />
            <Route path="/" element={<p>Home page</p>} />
          </Routes>
        </RouteErrorBoundary>
        <Link to="/">go home</Link>
      </MemoryRouter>,
    )
    expect(screen.getByRole('heading', { name: 'Something went wrong' })).toBeInTheDocument()
    fireEvent.click(screen.getByText('go home'))
    expect(await screen.findByText('Home page')).toBeInTheDocument()
    spy.mockRestore()
  })
})

describe('the calendar of the request form', () => {
  it('greys out what cannot be chosen, chooses with a click, and moves by keyboard across months', async () => {
    const { Calendar } = await import('@/components/ui/calendar')
    const { fireEvent } = await import('@testing-library/react')
    const chosen: string[] = []
    render(
      <Calendar
        label="Delivery days"
        min="2026-06-01"
        max="2026-08-31"
        onSelect={(d) => chosen.push(d)}
        unavailable={(d) => (new Date(`${d}T12:00:00Z`).getUTCDay() === 0 ? 'closed' : null)}
      />,
    )
    expect(screen.getByText('June 2026')).toBeInTheDocument()
    const sunday = screen.getByRole('button', { name: 'Sunday, June 7, 2026, closed' })
    expect(sunday).toHaveAttribute('aria-disabled', 'true')
    fireEvent.click(sunday)
    expect(chosen).toEqual([])
    fireEvent.click(screen.getByRole('button', { name: 'Monday, June 8, 2026' }))
    expect(chosen).toEqual(['2026-06-08'])
    // Before min: not available; the previous month cannot be opened.
    expect(screen.getByRole('button', { name: 'Previous month' })).toBeDisabled()
    // The arrows move the focus day by day and week by week, into the next month.
    const june30 = screen.getByRole('button', { name: 'Tuesday, June 30, 2026' })
    fireEvent.click(june30)
    fireEvent.keyDown(june30, { key: 'ArrowRight' })
    expect(screen.getByText('July 2026')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Wednesday, July 1, 2026' })).toHaveFocus()
    fireEvent.keyDown(screen.getByRole('button', { name: 'Wednesday, July 1, 2026' }), {
      key: 'ArrowDown',
    })
    expect(screen.getByRole('button', { name: 'Wednesday, July 8, 2026' })).toHaveFocus()
  })
})
