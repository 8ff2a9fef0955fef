/** The public catalogue's data calls (SPEC.md §7). */
import type { Tables } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

/** Rows as the database has them (`supagate gen types typescript` → database.types.ts). */
export type Product = Tables<'products'>
export type Category = Tables<'categories'>

/** Merges two product lists, keeps the first of each id, sorts by name (locale-aware). */
export function mergeProducts(primary: Product[], linked: Product[]): Product[] {
  const byId = new Map<string, Product>()
  for (const p of [...primary, ...linked]) if (!byId.has(p.id)) byId.set(p.id, p)
  return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name))
}

/**
 * The public listing algorithm of SPEC.md §7: products whose primary category is the slug's,
 * plus those linked to it, merged and sorted; every available product when there is no slug.
 * Errors are logged and give an empty list.
 */
export async function fetchProductsForSlug(slug?: string): Promise<Product[]> {
  try {
    if (!slug) {
      const { data, error } = await supabase
        .from('products')
        .select('*')
        .eq('is_available', true)
        .order('name')
      if (error) throw error
      return data ?? []
    }
    const { data: category, error: catError } = await supabase
      .from('categories')
      .select('id')
      .eq('slug', slug)
      .single()
    if (catError || !category) {
      if (catError) console.error('Error fetching products:', catError)
      return []
    }
    const { data: primary, error: pError } = await supabase
      .from('products')
      .select('*')
      .eq('is_available', true)
      .eq('category_id', category.id)
    if (pError) throw pError
    const { data: links, error: lError } = await supabase
      .from('product_categories')
      .select('product_id')
      .eq('category_id', category.id)
    if (lError) throw lError
    let linked: Product[] = []
    const ids = (links ?? []).map((l) => l.product_id)
    if (ids.length > 0) {
      const { data, error } = await supabase
        .from('products')
        .select('*')
        .eq('is_available', true)
        .in('id', ids)
      if (error) throw error
      linked = data ?? []
    }
    return mergeProducts(primary ?? [], linked)
  } catch (error) {
    console.error('Error fetching products:', error)
    return []
  }
}

export type ProductDetail = Pick<
  Product,
  | 'id'
  | 'name'
  | 'description'
  | 'base_price'
  | 'main_image_url'
  | 'ecwid_product_id'
  | 'ecwid_product_slug'
>

/** One available product for its detail page; null when missing or hidden. */
export async function fetchProductDetail(
  id: string,
): Promise<{ product: ProductDetail | null; error: unknown }> {
  const { data, error } = await supabase
    .from('products')
    .select(
      'id, name, description, base_price, main_image_url, ecwid_product_id, ecwid_product_slug',
    )
    .eq('id', id)
    .eq('is_available', true)
    .maybeSingle()
  return { product: data ?? null, error }
}
