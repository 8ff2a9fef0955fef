import { Link } from 'react-router-dom'
import { Plus } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { AdminTable, type Column } from '@/admin/AdminTable'
import { RowActions } from '@/admin/RowActions'
import { useRowMutations } from '@/admin/rowMutations'
import { useFailureToast } from '@/admin/useFailureToast'
import type { Category } from '@/features/catalogue/api'
import { useAdminCategories } from './api'

const columns: Column<Category>[] = [
  { heading: 'Order', cell: (c) => c.order_by },
  { heading: 'Name', primary: true, cell: (c) => <span className="font-semibold">{c.name}</span> },
  { heading: 'Slug', cell: (c) => <span className="font-mono text-xs">{c.slug}</span> },
  {
    heading: 'Status',
    cell: (c) => (
      <Badge tone={c.is_available ? 'good' : 'muted'}>
        {c.is_available ? 'Available' : 'Hidden'}
      </Badge>
    ),
  },
]

export default function CategoriesPage() {
  const categories = useAdminCategories()
  useFailureToast(categories.error, 'Failed to fetch categories')
  const { toggle, remove } = useRowMutations('categories')
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="font-display text-4xl font-bold">Categories</h1>
        <Button asChild>
          <Link to="/admin/categories/new">
            <Plus aria-hidden="true" /> Add Category
          </Link>
        </Button>
      </div>
      <AdminTable
        rows={categories.error ? [] : categories.data}
        columns={columns}
        rowKey={(c) => c.id}
        testId="category-row"
        loadingText="Loading categories..."
        emptyText="No categories found"
        actions={(c) => (
          <RowActions
            name={c.name}
            available={c.is_available}
            editTo={`/admin/categories/${c.id}`}
            confirmTitle="Are you sure you want to delete this category?"
            confirmText={`"${c.name}" will be removed; its products stay, without this category.`}
            onToggle={() => toggle(c)}
            onDelete={() => remove({ ...c, image: c.image_url })}
          />
        )}
      />
    </div>
  )
}
