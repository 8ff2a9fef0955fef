/** The admin products' data calls (SPEC.md §7) and their cached queries. */
import { useQuery } from '@tanstack/react-query'
import { nullIfEmpty } from '@/lib/forms'
import { removeImages } from '@/lib/images'
import { supabase } from '@/lib/supabase'
import type { ProductForm } from './schema'

export function useAdminProducts() {
  return useQuery({
    queryKey: ['products', 'list'],
    queryFn: async () => {
      const { data, error } = await supabase.from('products').select('*').order('name')
      if (error) throw error
      return data
    },
  })
}

/** Category ids and names, for the product form and the list's category column. */
export function useCategoryNames() {
  return useQuery({
    queryKey: ['category-names'],
    queryFn: async () => {
      const { data, error } = await supabase.from('categories').select('id, name').order('name')
      if (error) throw error
      return data
    },
  })
}

/** One product and its additional categories, for the edit form. */
export function useProductForEdit(id: string | null) {
  return useQuery({
    queryKey: ['products', 'edit', id],
    enabled: id !== null,
    // Loaded fresh for each visit of the form (no cache kept), and not reloaded while typing.
    staleTime: Infinity,
    gcTime: 0,
    queryFn: async () => {
      const [product, links] = await Promise.all([
        supabase.from('products').select('*').eq('id', id!).single(),
        supabase.from('product_categories').select('category_id').eq('product_id', id!),
      ])
      if (product.error) throw product.error
      if (links.error) throw links.error
      return { product: product.data, links: links.data.map((l) => l.category_id) }
    },
  })
}

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

/**
 * Saves a product (`target`: its id, or a new product's id) with its additional categories in
 * one transaction (`save_product`), then removes the image it no longer uses.
 */
export async function saveProduct(
  form: ProductForm,
  target: string | { create: string },
  previousImage: string | null,
) {
  const row = productRow(form)
  // A create names the id it was given once per form: sent again after its answer was lost, it
  // saves onto the product it made (save_product), never a second one.
  const { data, error } = await supabase.rpc('save_product', {
    product: typeof target === 'string' ? row : { ...row, id: target.create },
    category_ids: [...new Set(form.additional_category_ids)],
    ...(typeof target === 'string' ? { id: target } : {}),
  })
  if (!error && previousImage !== row.main_image_url)
    await removeImages('product-images', [previousImage])
  return { data, error }
}
