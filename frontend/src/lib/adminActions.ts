/** Hide/show and delete for the admin lists, with the toasts of SPEC.md §8. */
import { toast } from '@/components/ui/use-toast'
import { supabase } from './supabase'

type Table = 'products' | 'categories'
const label = { products: 'Product', categories: 'Category' } as const
const noun = { products: 'product', categories: 'category' } as const

/** Flips is_available; true when it worked. */
export async function toggleAvailability(table: Table, row: { id: string; name: string; is_available: boolean }): Promise<boolean> {
  const { error } = await supabase.from(table).update({ is_available: !row.is_available }).eq('id', row.id)
  if (error) {
    toast({ variant: 'destructive', title: `Failed to update ${noun[table]}`, description: error.message })
    return false
  }
  toast({ title: `${label[table]} ${row.is_available ? 'disabled' : 'enabled'}`, description: row.name })
  return true
}

/** Deletes by id; true when it worked. */
export async function deleteRow(table: Table, id: string): Promise<boolean> {
  const { error } = await supabase.from(table).delete().eq('id', id)
  if (error) {
    toast({ variant: 'destructive', title: `Failed to delete ${noun[table]}`, description: error.message })
    return false
  }
  toast({ title: `${label[table]} deleted` })
  return true
}
