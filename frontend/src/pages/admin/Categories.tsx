import * as React from 'react'
import { Link } from 'react-router-dom'
import { Plus } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Badge } from '@/components/ui/switch'
import { RowActions } from '@/components/admin/RowActions'
import { AdminTable } from '@/components/admin/AdminTable'
import { toast } from '@/components/ui/use-toast'
import { listCategories } from '@/lib/admin'
import type { Category } from '@/lib/products'
import { deleteRow, toggleAvailability } from '@/lib/adminActions'
import { useLiveChanges } from '@/lib/live'

export default function Categories() {
  const [categories, setCategories] = React.useState<Category[] | null>(null)
  const load = React.useCallback(async () => {
    const { data, error } = await listCategories()
    if (error) {
      toast({ variant: 'destructive', title: 'Failed to fetch categories', description: error.message })
      setCategories([])
      return
    }
    setCategories(data ?? [])
  }, [])
  React.useEffect(() => {
    load()
  }, [load])
  useLiveChanges(['categories'], load)

  const toggle = async (c: Category) => {
    if (await toggleAvailability('categories', c)) load()
  }
  const remove = async (c: Category) => {
    if (await deleteRow('categories', c.id)) load()
  }

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="font-display text-4xl font-bold">Categories</h1>
        <Button asChild><Link to="/admin/categories/new"><Plus aria-hidden="true" /> Add Category</Link></Button>
      </div>
      <AdminTable rows={categories} loadingText="Loading categories..." emptyText="No categories found" headings={['Order', 'Name', 'Slug', 'Status', 'Actions']}>
        {(list) =>
          list.map((c) => (
            <tr key={c.id} className="border-b last:border-0" data-testid="category-row">
              <td className="p-3">{c.order_by}</td>
              <td className="p-3 font-semibold">{c.name}</td>
              <td className="p-3 font-mono text-xs">{c.slug}</td>
              <td className="p-3"><Badge tone={c.is_available ? 'good' : 'muted'}>{c.is_available ? 'Available' : 'Hidden'}</Badge></td>
              <td className="p-3">
                <RowActions
                  name={c.name}
                  available={c.is_available}
                  editTo={`/admin/categories/${c.id}`}
                  confirmTitle="Are you sure you want to delete this category?"
                  confirmText={`"${c.name}" will be removed; its products stay, without this category.`}
                  onToggle={() => toggle(c)}
                  onDelete={() => remove(c)}
                />
              </td>
            </tr>
          ))
        }
      </AdminTable>
    </div>
  )
}
