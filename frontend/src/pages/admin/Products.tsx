import * as React from 'react'
import { Link } from 'react-router-dom'
import { Plus } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Badge } from '@/components/ui/switch'
import { RowActions } from '@/components/admin/RowActions'
import { AdminTable } from '@/components/admin/AdminTable'
import { toast } from '@/components/ui/use-toast'
import { categoryNames, listProducts } from '@/lib/admin'
import type { Product } from '@/lib/products'
import { deleteRow, toggleAvailability } from '@/lib/adminActions'
import { formatPrice } from '@/lib/utils'
import { useLiveChanges } from '@/lib/live'

export default function Products() {
  const [products, setProducts] = React.useState<Product[] | null>(null)
  const [names, setNames] = React.useState<Record<string, string>>({})
  const load = React.useCallback(async () => {
    const [{ data, error }, cats] = await Promise.all([listProducts(), categoryNames()])
    if (error) {
      toast({ variant: 'destructive', title: 'Failed to fetch products', description: error.message })
      setProducts([])
      return
    }
    setNames(Object.fromEntries((cats.data ?? []).map((c) => [c.id, c.name])))
    setProducts(data ?? [])
  }, [])
  React.useEffect(() => {
    load()
  }, [load])
  useLiveChanges(['products', 'categories', 'product_categories'], load)

  const toggle = async (p: Product) => {
    if (await toggleAvailability('products', p)) load()
  }
  const remove = async (p: Product) => {
    if (await deleteRow('products', p.id)) load()
  }

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="font-display text-4xl font-bold">Products</h1>
        <Button asChild>
          <Link to="/admin/products/new"><Plus aria-hidden="true" /> Add Product</Link>
        </Button>
      </div>
      <AdminTable rows={products} loadingText="Loading products..." emptyText="No products found" headings={['Image', 'Name', 'Price', 'Category', 'Status', 'Actions']}>
        {(list) =>
          list.map((p) => (
            <tr key={p.id} className="border-b last:border-0" data-testid="product-row">
              <td className="p-3">
                {p.main_image_url ? (
                  <img src={p.main_image_url} alt="" className="size-12 rounded object-cover" />
                ) : (
                  <span className="flex size-12 items-center justify-center rounded bg-cream-200 text-[10px] text-muted-foreground">No Image</span>
                )}
              </td>
              <td className="p-3">
                <p className="font-semibold">{p.name}</p>
                {p.sku && <p className="text-xs text-muted-foreground">SKU {p.sku}</p>}
              </td>
              <td className="p-3">{formatPrice(p.base_price)}</td>
              <td className="p-3">{(p.category_id && names[p.category_id]) || '—'}</td>
              <td className="p-3">
                <Badge tone={p.is_available ? 'good' : 'muted'}>{p.is_available ? 'Available' : 'Hidden'}</Badge>
              </td>
              <td className="p-3">
                <RowActions
                  name={p.name}
                  available={p.is_available}
                  editTo={`/admin/products/${p.id}`}
                  confirmTitle="Are you sure you want to delete this product?"
                  confirmText={`"${p.name}" and its category links will be removed. This cannot be undone.`}
                  onToggle={() => toggle(p)}
                  onDelete={() => remove(p)}
                />
              </td>
            </tr>
          ))
        }
      </AdminTable>
    </div>
  )
}
