import { afterEach, describe, expect, it, vi } from 'vitest'
import { render, screen, waitFor } from '@testing-library/react'
import { MemoryRouter } from 'react-router-dom'
import { supabase } from '@/lib/supabase'
import { imageUrl } from '@/lib/imageUrl'
import { readUrl } from '@/lib/rest'
import type { Product } from '@/features/catalogue/api'

const product = (id: string, name: string): Product => ({
  id,
  name,
  sku: null,
  description: null,
  base_price: 20,
  main_image_url: 'flowers/a b.png',
  category_id: null,
  is_available: true,
  is_featured: true,
  ecwid_product_id: null,
  ecwid_product_slug: null,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
})

describe("the home page's reads without supabase-js", () => {
  it('shows an image at the address supabase-js gives it', () => {
    for (const value of ['a.png', 'folder/a b.png', '/lead.png', 'ümlaut/x.webp']) {
      const expected = value.startsWith('/')
        ? value
        : supabase.storage.from('product-images').getPublicUrl(value).data.publicUrl
      expect(imageUrl('product-images', value), value).toBe(expected)
    }
    expect(imageUrl('product-images', 'https://cdn.example/x.png')).toBe(
      'https://cdn.example/x.png',
    )
    expect(imageUrl('category-images', null)).toBeNull()
  })

  it('reads with PostgREST filters, every value encoded', () => {
    expect(
      readUrl('http://api.example/', 'products', {
        select: '*',
        is_featured: 'eq.true',
        name: 'eq.A&B',
        order: 'name',
        limit: 8,
      }),
    ).toBe(
      'http://api.example/rest/v1/products?select=*&is_featured=eq.true&name=eq.A%26B&order=name&limit=8',
    )
  })
})

describe('featured products', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('shows the featured products read as the visitor, and nothing when the read fails', async () => {
    const fetch = vi
      .fn()
      .mockResolvedValue(
        new Response(JSON.stringify([product('1', 'Fern'), product('2', 'Ivy')]), { status: 200 }),
      )
    vi.stubGlobal('fetch', fetch)
    const { default: FeaturedProducts } = await import('@/features/catalogue/FeaturedProducts')
    const { unmount } = render(
      <MemoryRouter>
        <FeaturedProducts />
      </MemoryRouter>,
    )
    await waitFor(() => expect(screen.getByRole('heading', { name: 'Fern' })).toBeInTheDocument())
    expect(screen.getByRole('heading', { name: 'Featured Flowers' })).toBeInTheDocument()
    expect(screen.getAllByText('$20.00')).toHaveLength(2)
    const [url, init] = fetch.mock.calls[0] as [string, RequestInit]
    expect(url).toMatch(
      /\/rest\/v1\/products\?select=\*&is_available=eq\.true&is_featured=eq\.true&order=name&limit=8$/,
    )
    expect((init.headers as Record<string, string>).apikey).toBeTruthy()
    unmount()

    const spy = vi.spyOn(console, 'error').mockImplementation(() => {})
    vi.stubGlobal(
      'fetch',
      vi.fn().mockResolvedValue(new Response('{"message":"down"}', { status: 503 })),
    )
    const { container } = render(
      <MemoryRouter>
        <FeaturedProducts />
      </MemoryRouter>,
    )
    await waitFor(() => expect(spy).toHaveBeenCalled())
    expect(container).toBeEmptyDOMElement()
    spy.mockRestore()
  })
})
