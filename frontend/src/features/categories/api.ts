/** The admin categories' data calls (SPEC.md §7) and their cached queries. */
import { useQuery } from '@tanstack/react-query'
import { nullIfEmpty } from '@/lib/forms'
import { removeImages } from '@/lib/images'
import { supabase } from '@/lib/supabase'
import type { CategoryForm } from './schema'

export function useAdminCategories() {
  return useQuery({
    queryKey: ['categories', 'list'],
    queryFn: async () => {
      const { data, error } = await supabase.from('categories').select('*').order('order_by')
      if (error) throw error
      return data
    },
  })
}

/** One category for the edit form: loaded fresh for each visit, not reloaded while typing. */
export function useCategoryForEdit(id: string | null) {
  return useQuery({
    queryKey: ['categories', 'edit', id],
    enabled: id !== null,
    staleTime: Infinity,
    gcTime: 0,
    queryFn: async () => {
      const { data, error } = await supabase.from('categories').select('*').eq('id', id!).single()
      if (error) throw error
      return data
    },
  })
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

/** Inserts (`target`: a new category's id, made once per form) or updates (its id) one category,
 * then removes the image it no longer uses. A create sent again after its answer was lost finds
 * the category it made and saves onto it. */
export async function saveCategory(
  form: CategoryForm,
  target: string | { create: string },
  previousImage: string | null,
) {
  const row = categoryRow(form)
  const update = (id: string) => supabase.from('categories').update(row).eq('id', id)
  let { error } =
    typeof target === 'string'
      ? await update(target)
      : await supabase.from('categories').insert({ ...row, id: target.create })
  if (
    typeof target !== 'string' &&
    error?.code === '23505' &&
    /categories_pkey/.test(error.message)
  )
    ({ error } = await update(target.create))
  if (!error && previousImage !== row.image_url)
    await removeImages('category-images', [previousImage])
  return { error }
}
