/** The admin area's data calls (SPEC.md §7), all through supabase-js. */
import { supabase } from './supabase'
import type { CategoryForm, ProductForm } from './schemas'
import type { ImportResult, ImportRow } from './csvImport'

export async function listProducts() {
  return supabase.from('products').select('*').order('name')
}

export async function listCategories() {
  return supabase.from('categories').select('*').order('order_by')
}

export async function categoryNames() {
  return supabase.from('categories').select('id, name').order('name')
}

export async function dashboardCounts() {
  const [products, categories, availability] = await Promise.all([
    supabase.from('products').select('*', { count: 'exact', head: true }),
    supabase.from('categories').select('*', { count: 'exact', head: true }),
    supabase.from('products').select('is_available'),
  ])
  const error = products.error ?? categories.error ?? availability.error
  const available = (availability.data ?? []).filter((p) => p.is_available).length
  const total = products.count ?? 0
  return { error, total, available, unavailable: total - available, categories: categories.count ?? 0 }
}

const nullIfEmpty = (v: string | undefined | null) => (v && v.trim() !== '' ? v.trim() : null)

export function productRow(f: ProductForm) {
  return {
    name: f.name.trim(),
    sku: nullIfEmpty(f.sku),
    description: nullIfEmpty(f.description),
    base_price: f.base_price,
    category_id: f.category_id || null,
    main_image_url: nullIfEmpty(f.main_image_url),
    is_available: f.is_available,
    is_featured: f.is_featured,
    ecwid_product_id: nullIfEmpty(f.ecwid_product_id),
    ecwid_product_slug: nullIfEmpty(f.ecwid_product_slug),
  }
}

export async function productLinks(productId: string): Promise<string[]> {
  const { data } = await supabase.from('product_categories').select('category_id').eq('product_id', productId)
  return (data ?? []).map((l) => l.category_id)
}

/**
 * Saves a product and then its additional categories the way §7 says: delete the links, then
 * insert the new ones. If the insert fails, the previous links are put back, so the product and
 * its links do not disagree.
 */
export async function saveProduct(form: ProductForm, id: string | null, previousLinks: string[]): Promise<{ id: string | null; error: string | null }> {
  const row = productRow(form)
  const saved = id
    ? await supabase.from('products').update(row).eq('id', id).select().single()
    : await supabase.from('products').insert(row).select().single()
  if (saved.error || !saved.data) return { id, error: saved.error?.message ?? 'The product was not saved' }
  const productId = saved.data.id
  const wanted = [...new Set(form.additional_category_ids)].filter((c) => c !== form.category_id)
  const unchanged = wanted.length === previousLinks.length && wanted.every((c) => previousLinks.includes(c))
  if (id && unchanged) return { id: productId, error: null }
  const del = await supabase.from('product_categories').delete().eq('product_id', productId)
  if (del.error) return { id: productId, error: del.error.message }
  if (wanted.length > 0) {
    const ins = await supabase.from('product_categories').insert(wanted.map((category_id) => ({ product_id: productId, category_id })))
    if (ins.error) {
      if (previousLinks.length > 0) {
        await supabase.from('product_categories').insert(previousLinks.map((category_id) => ({ product_id: productId, category_id })))
      }
      return { id: productId, error: ins.error.message }
    }
  }
  return { id: productId, error: null }
}

export function categoryRow(f: CategoryForm) {
  return {
    name: f.name.trim(),
    slug: f.slug.trim(),
    description: nullIfEmpty(f.description),
    image_url: nullIfEmpty(f.image_url),
    order_by: f.order_by,
    is_available: f.is_available,
  }
}

export async function saveCategory(form: CategoryForm, id: string | null) {
  const row = categoryRow(form)
  return id ? supabase.from('categories').update(row).eq('id', id) : supabase.from('categories').insert(row)
}

export async function getProduct(id: string) {
  return supabase.from('products').select('*').eq('id', id).single()
}

export async function getCategory(id: string) {
  return supabase.from('categories').select('*').eq('id', id).single()
}

/** Applies import rows with a few requests in flight, reporting progress as rows finish. */
export async function applyImport(rows: ImportRow[], onProgress: (done: number) => void): Promise<ImportResult[]> {
  const results: ImportResult[] = new Array(rows.length)
  // Look up by sku in batches (the §7 lookup, a hundred skus per request).
  const found = new Map<string, { id: string; name: string; sku: string }>()
  for (let i = 0; i < rows.length; i += 100) {
    const skus = rows.slice(i, i + 100).map((r) => r.sku)
    const { data, error } = await supabase.from('products').select('id, name, sku').in('sku', skus)
    if (error) throw new Error(error.message)
    for (const p of data ?? []) if (p.sku !== null) found.set(p.sku, { id: p.id, name: p.name, sku: p.sku })
  }
  let done = 0
  let next = 0
  const worker = async () => {
    while (next < rows.length) {
      const i = next++
      const r = rows[i]
      const product = found.get(r.sku)
      if (!product) {
        results[i] = { sku: r.sku, name: r.name, status: 'not_found', message: 'Product not found in database', productInternalId: r.productInternalId }
      } else {
        const { error } = await supabase.from('products').update({ ecwid_product_id: r.productInternalId }).eq('id', product.id)
        results[i] = error
          ? { sku: r.sku, name: product.name, status: 'error', message: error.message, productInternalId: r.productInternalId }
          : { sku: r.sku, name: product.name, status: 'success', message: 'Updated', productInternalId: r.productInternalId }
      }
      onProgress(++done)
    }
  }
  await Promise.all(Array.from({ length: Math.min(8, rows.length) }, worker))
  return results
}
