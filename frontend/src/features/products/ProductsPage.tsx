import { Link } from 'react-router-dom'
import { Plus } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { AdminTable, type Column } from '@/admin/AdminTable'
import { RowActions } from '@/admin/RowActions'
import { useRowMutations } from '@/admin/rowMutations'
import { useFailureToast } from '@/admin/useFailureToast'
import type { Product } from '@/features/catalogue/api'
import { imageUrl } from '@/lib/images'
import { formatPrice } from '@/lib/utils'
import { useAdminProducts, useCategoryNames } from './api'

export default function ProductsPage() {
  const products = useAdminProducts()
  const categories = useCategoryNames()
  useFailureToast(products.error, 'Failed to fetch products')
  const names = Object.fromEntries((categories.data ?? []).map((c) => [c.id, c.name]))
  const { toggle, remove } = useRowMutations('products')

  const columns: Column<Product>[] = [
    {
      heading: 'Image',
      desktopOnly: true,
      cell: (p) => {
        const src = imageUrl('product-images', p.main_image_url)
        return src ? (
          <img src={src} alt="" className="size-12 rounded object-cover" />
        ) : (
          <span className="flex size-12 items-center justify-center rounded bg-cream-200 text-[10px] text-muted-foreground">
            No Image
          </span>
        )
      },
    },
    {
      heading: 'Name',
      primary: true,
      cell: (p) => (
        <>
          <p className="font-semibold">{p.name}</p>
          {p.sku && <p className="text-xs text-muted-foreground">SKU {p.sku}</p>}
        </>
      ),
    },
    { heading: 'Price', cell: (p) => formatPrice(p.base_price) },
    { heading: 'Category', cell: (p) => (p.category_id && names[p.category_id]) || '—' },
    {
      heading: 'Status',
      cell: (p) => (
        <Badge tone={p.is_available ? 'good' : 'muted'}>
          {p.is_available ? 'Available' : 'Hidden'}
        </Badge>
      ),
    },
  ]

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="font-display text-4xl font-bold">Products</h1>
        <Button asChild>
          <Link to="/admin/products/new">
            <Plus aria-hidden="true" /> Add Product
          </Link>
        </Button>
      </div>
      <AdminTable
        rows={products.error ? [] : products.data}
        columns={columns}
        rowKey={(p) => p.id}
        testId="product-row"
        loadingText="Loading products..."
        emptyText="No products found"
        actions={(p) => (
          <RowActions
            name={p.name}
            available={p.is_available}
            editTo={`/admin/products/${p.id}`}
            confirmTitle="Are you sure you want to delete this product?"
            confirmText={`"${p.name}" and its category links will be removed. This cannot be undone.`}
            onToggle={() => toggle(p)}
            onDelete={() => remove({ ...p, image: p.main_image_url })}
          />
        )}
      />
    </div>
  )
}
