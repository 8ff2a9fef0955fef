/** Hide/show and delete for the admin lists of products and categories, with the toasts of SPEC.md §8. */
import { useQueryClient } from '@tanstack/react-query'
import { toast } from '@/components/ui/use-toast'
import { describeError, isUnreachable, type ServiceError } from '@/lib/errors'
import { removeImages, type ImageBucket } from '@/lib/images'
import { supabase } from '@/lib/supabase'

type Table = 'products' | 'categories'
const label = { products: 'Product', categories: 'Category' } as const
const noun = { products: 'product', categories: 'category' } as const
const bucket: Record<Table, ImageBucket> = {
  products: 'product-images',
  categories: 'category-images',
}

interface Row {
  id: string
  name: string
  is_available: boolean
}

/** Flip is_available and delete (with the row's uploaded image) for one table's list. */
export function useRowMutations(table: Table) {
  const client = useQueryClient()
  const refresh = () => {
    void client.invalidateQueries({ queryKey: [table] })
    void client.invalidateQueries({ queryKey: ['dashboard'] })
  }
  // An unreachable server: the open page's queries are asked again, so the outage banner shows.
  const failed = (error: ServiceError, title: string) => {
    toast({ variant: 'destructive', title, description: describeError(error) })
    if (isUnreachable(error)) void client.refetchQueries({ type: 'active' })
  }
  const toggle = async (row: Row) => {
    const { error } = await supabase
      .from(table)
      .update({ is_available: !row.is_available })
      .eq('id', row.id)
    if (error) {
      failed(error, `Failed to update ${noun[table]}`)
      return
    }
    toast({
      title: `${label[table]} ${row.is_available ? 'disabled' : 'enabled'}`,
      description: row.name,
    })
    refresh()
  }
  const remove = async (row: Row & { image?: string | null }) => {
    const { error } = await supabase.from(table).delete().eq('id', row.id)
    if (error) {
      failed(error, `Failed to delete ${noun[table]}`)
      return
    }
    toast({ title: `${label[table]} deleted` })
    await removeImages(bucket[table], [row.image])
    refresh()
  }
  return { toggle, remove }
}
