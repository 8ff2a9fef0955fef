import * as React from 'react'
import { Link, useNavigate, useParams } from 'react-router-dom'
import { Controller, useForm } from 'react-hook-form'
import { zodResolver } from '@hookform/resolvers/zod'
import { useQueryClient } from '@tanstack/react-query'
import { ArrowLeft } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Checkbox } from '@/components/ui/checkbox'
import { FieldError } from '@/components/ui/field-error'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { NativeSelect } from '@/components/ui/native-select'
import { Switch } from '@/components/ui/switch'
import { Textarea } from '@/components/ui/textarea'
import { toast } from '@/components/ui/use-toast'
import { ImageUpload } from '@/admin/ImageUpload'
import { useEditLoad } from '@/admin/useEditLoad'
import { SaveFailure, useSave } from '@/admin/useSave'
import { describeError } from '@/lib/errors'
import { saveProduct, useCategoryNames, useProductForEdit } from './api'
import { productDefaults, productSchema, type ProductForm } from './schema'

export default function ProductFormPage() {
  const { id } = useParams()
  const editing = id && id !== 'new' ? id : null
  const navigate = useNavigate()
  const client = useQueryClient()
  const names = useCategoryNames()
  const loaded = useProductForEdit(editing)
  const categories = names.data ?? []
  const {
    register,
    control,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<ProductForm>({
    resolver: zodResolver(productSchema),
    defaultValues: productDefaults,
  })
  const savedImage = loaded.data?.product.main_image_url ?? null
  React.useEffect(() => {
    if (names.error)
      toast({
        variant: 'destructive',
        title: 'Error fetching categories',
        description: describeError(names.error),
      })
  }, [names.error])
  const ready = useEditLoad(
    editing,
    loaded,
    ({ product: data, links }) =>
      reset({
        name: data.name,
        sku: data.sku ?? '',
        description: data.description ?? '',
        base_price: Number(data.base_price),
        category_id: data.category_id ?? '',
        additional_category_ids: links,
        main_image_url: data.main_image_url ?? '',
        is_available: data.is_available,
        is_featured: data.is_featured,
        ecwid_product_id: data.ecwid_product_id ?? '',
        ecwid_product_slug: data.ecwid_product_slug ?? '',
      }),
    { title: 'Failed to fetch products', back: '/admin/products' },
  )

  // A new product's id, made once: a create tried again after a lost answer saves the same product.
  const newId = React.useRef(crypto.randomUUID())
  const save = useSave()
  const onSubmit = async (form: ProductForm) => {
    if (
      !(await save.run(() => saveProduct(form, editing ?? { create: newId.current }, savedImage)))
    )
      return
    toast({ title: editing ? 'Product updated successfully' : 'Product created successfully' })
    await client.invalidateQueries({ queryKey: ['products'] })
    void client.invalidateQueries({ queryKey: ['dashboard'] })
    navigate('/admin/products')
  }

  if (!ready) return <p role="status">Loading…</p>
  return (
    <div className="max-w-3xl space-y-6">
      <Button variant="ghost" asChild>
        <Link to="/admin/products">
          <ArrowLeft aria-hidden="true" /> Products
        </Link>
      </Button>
      <h1 className="font-display text-4xl font-bold">
        {editing ? 'Edit Product' : 'New Product'}
      </h1>
      <form
        onSubmit={handleSubmit(onSubmit)}
        noValidate
        className="space-y-6 rounded-lg border bg-card p-6"
      >
        <div className="grid gap-4 sm:grid-cols-2">
          <div className="space-y-2 sm:col-span-2">
            <Label htmlFor="p-name">Name</Label>
            <Input
              id="p-name"
              aria-invalid={!!errors.name}
              aria-describedby="p-name-error"
              {...register('name')}
            />
            <FieldError id="p-name-error" message={errors.name?.message} />
          </div>
          <div className="space-y-2">
            <Label htmlFor="p-sku">SKU</Label>
            <Input
              id="p-sku"
              aria-invalid={!!errors.sku}
              aria-describedby="p-sku-error"
              {...register('sku')}
            />
            <FieldError id="p-sku-error" message={errors.sku?.message} />
          </div>
          <div className="space-y-2">
            <Label htmlFor="p-price">Price ($)</Label>
            <Input
              id="p-price"
              type="number"
              step="0.01"
              min="0"
              aria-invalid={!!errors.base_price}
              aria-describedby="p-price-error"
              {...register('base_price', { valueAsNumber: true })}
            />
            <FieldError id="p-price-error" message={errors.base_price?.message} />
          </div>
          <div className="space-y-2 sm:col-span-2">
            <Label htmlFor="p-description">Description</Label>
            <Textarea id="p-description" {...register('description')} />
          </div>
          <div className="space-y-2">
            <Label htmlFor="p-category">Primary category</Label>
            <NativeSelect id="p-category" {...register('category_id')}>
              <option value="">No Category</option>
              {categories.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </NativeSelect>
            <FieldError message={errors.category_id?.message} />
          </div>
          <fieldset className="space-y-2">
            <legend className="text-sm font-semibold text-ink-700">Additional categories</legend>
            <Controller
              control={control}
              name="additional_category_ids"
              render={({ field }) => (
                <div
                  className="max-h-48 space-y-1 overflow-y-auto rounded-md border bg-cream-50 p-2"
                  data-testid="additional-categories"
                >
                  {categories.map((c) => (
                    <Label
                      key={c.id}
                      htmlFor={`extra-${c.id}`}
                      className="flex cursor-pointer items-center gap-2 rounded px-2 py-1.5 font-normal hover:bg-rose-100"
                    >
                      <Checkbox
                        id={`extra-${c.id}`}
                        checked={field.value.includes(c.id)}
                        onCheckedChange={(v) =>
                          field.onChange(
                            v ? [...field.value, c.id] : field.value.filter((x) => x !== c.id),
                          )
                        }
                      />
                      {c.name}
                    </Label>
                  ))}
                </div>
              )}
            />
          </fieldset>
          <Controller
            control={control}
            name="main_image_url"
            render={({ field }) => (
              <div className="sm:col-span-2">
                <ImageUpload
                  bucket="product-images"
                  label="Main image"
                  value={field.value ?? ''}
                  saved={savedImage}
                  onChange={field.onChange}
                />
              </div>
            )}
          />
          <div className="space-y-2">
            <Label htmlFor="p-ecwid-id">Store product id</Label>
            <Input
              id="p-ecwid-id"
              aria-invalid={!!errors.ecwid_product_id}
              aria-describedby="p-ecwid-id-error"
              {...register('ecwid_product_id')}
            />
            <FieldError id="p-ecwid-id-error" message={errors.ecwid_product_id?.message} />
          </div>
          <div className="space-y-2">
            <Label htmlFor="p-ecwid-slug">Store product slug</Label>
            <Input id="p-ecwid-slug" {...register('ecwid_product_slug')} />
          </div>
          <Controller
            control={control}
            name="is_available"
            render={({ field }) => (
              <Label htmlFor="p-available" className="flex items-center gap-3">
                <Switch id="p-available" checked={field.value} onCheckedChange={field.onChange} />{' '}
                Available
              </Label>
            )}
          />
          <Controller
            control={control}
            name="is_featured"
            render={({ field }) => (
              <Label htmlFor="p-featured" className="flex items-center gap-3">
                <Switch id="p-featured" checked={field.value} onCheckedChange={field.onChange} />{' '}
                Featured
              </Label>
            )}
          />
        </div>
        <SaveFailure
          message={save.failure}
          onRetry={() => void handleSubmit(onSubmit)()}
          busy={isSubmitting}
          what={editing ? 'Your changes were' : 'The product was'}
        />
        <div className="flex gap-2">
          <Button type="submit" disabled={isSubmitting}>
            {isSubmitting ? 'Saving…' : editing ? 'Update Product' : 'Create Product'}
          </Button>
          <Button type="button" variant="outline" asChild>
            <Link to="/admin/products">Cancel</Link>
          </Button>
        </div>
      </form>
    </div>
  )
}
