import * as React from 'react'
import { Link, useNavigate, useParams } from 'react-router-dom'
import { Controller, useForm } from 'react-hook-form'
import { zodResolver } from '@hookform/resolvers/zod'
import { useQueryClient } from '@tanstack/react-query'
import { ArrowLeft } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { FieldError } from '@/components/ui/field-error'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Switch } from '@/components/ui/switch'
import { Textarea } from '@/components/ui/textarea'
import { toast } from '@/components/ui/use-toast'
import { ImageUpload } from '@/admin/ImageUpload'
import { useEditLoad } from '@/admin/useEditLoad'
import { SaveFailure, useSave } from '@/admin/useSave'
import { saveCategory, useCategoryForEdit } from './api'
import { categoryDefaults, categorySchema, slugify, type CategoryForm } from './schema'

export default function CategoryFormPage() {
  const { id } = useParams()
  const editing = id && id !== 'new' ? id : null
  const navigate = useNavigate()
  const client = useQueryClient()
  const loaded = useCategoryForEdit(editing)
  // A new category's slug follows its name until someone edits the slug by hand.
  const [slugTouched, setSlugTouched] = React.useState(!!editing)
  const {
    register,
    control,
    handleSubmit,
    reset,
    setValue,
    formState: { errors, isSubmitting },
  } = useForm<CategoryForm>({
    resolver: zodResolver(categorySchema),
    defaultValues: categoryDefaults,
  })
  const savedImage = loaded.data?.image_url ?? null
  const ready = useEditLoad(
    editing,
    loaded,
    (data) =>
      reset({
        name: data.name,
        slug: data.slug,
        description: data.description ?? '',
        image_url: data.image_url ?? '',
        order_by: data.order_by,
        is_available: data.is_available,
      }),
    { title: 'Failed to fetch categories', back: '/admin/categories' },
  )

  const name = register('name')
  // A new category's id, made once: a create tried again after a lost answer saves the same one.
  const newId = React.useRef(crypto.randomUUID())
  const save = useSave()
  const onSubmit = async (form: CategoryForm) => {
    if (
      !(await save.run(() => saveCategory(form, editing ?? { create: newId.current }, savedImage)))
    )
      return
    toast({ title: editing ? 'Category updated successfully' : 'Category created successfully' })
    await client.invalidateQueries({ queryKey: ['categories'] })
    void client.invalidateQueries({ queryKey: ['category-names'] })
    void client.invalidateQueries({ queryKey: ['dashboard'] })
    navigate('/admin/categories')
  }

  if (!ready) return <p role="status">Loading…</p>
  return (
    <div className="max-w-2xl space-y-6">
      <Button variant="ghost" asChild>
        <Link to="/admin/categories">
          <ArrowLeft aria-hidden="true" /> Categories
        </Link>
      </Button>
      <h1 className="font-display text-4xl font-bold">
        {editing ? 'Edit Category' : 'New Category'}
      </h1>
      <form
        onSubmit={handleSubmit(onSubmit)}
        noValidate
        className="space-y-5 rounded-lg border bg-card p-6"
      >
        <div className="space-y-2">
          <Label htmlFor="c-name">Name</Label>
          <Input
            id="c-name"
            aria-invalid={!!errors.name}
            aria-describedby="c-name-error"
            {...name}
            onChange={(e) => {
              name.onChange(e)
              if (!slugTouched)
                setValue('slug', slugify(e.target.value), { shouldValidate: !!errors.slug })
            }}
          />
          <FieldError id="c-name-error" message={errors.name?.message} />
        </div>
        <div className="space-y-2">
          <Label htmlFor="c-slug">Slug</Label>
          <Input
            id="c-slug"
            aria-invalid={!!errors.slug}
            aria-describedby="c-slug-error"
            {...register('slug', { onChange: () => setSlugTouched(true) })}
          />
          <FieldError id="c-slug-error" message={errors.slug?.message} />
        </div>
        <div className="space-y-2">
          <Label htmlFor="c-description">Description</Label>
          <Textarea id="c-description" {...register('description')} />
        </div>
        <Controller
          control={control}
          name="image_url"
          render={({ field }) => (
            <ImageUpload
              bucket="category-images"
              label="Image"
              value={field.value ?? ''}
              saved={savedImage}
              onChange={field.onChange}
            />
          )}
        />
        <div className="grid gap-4 sm:grid-cols-2">
          <div className="space-y-2">
            <Label htmlFor="c-order">Order</Label>
            <Input
              id="c-order"
              type="number"
              min="0"
              step="1"
              aria-invalid={!!errors.order_by}
              aria-describedby="c-order-error"
              {...register('order_by', { valueAsNumber: true })}
            />
            <FieldError id="c-order-error" message={errors.order_by?.message} />
          </div>
          <Controller
            control={control}
            name="is_available"
            render={({ field }) => (
              <Label htmlFor="c-available" className="flex items-center gap-3 self-end pb-2">
                <Switch id="c-available" checked={field.value} onCheckedChange={field.onChange} />{' '}
                Available
              </Label>
            )}
          />
        </div>
        <SaveFailure
          message={save.failure}
          onRetry={() => void handleSubmit(onSubmit)()}
          busy={isSubmitting}
          what={editing ? 'Your changes were' : 'The category was'}
        />
        <div className="flex gap-2">
          <Button type="submit" disabled={isSubmitting}>
            {isSubmitting ? 'Saving…' : editing ? 'Update Category' : 'Create Category'}
          </Button>
          <Button type="button" variant="outline" asChild>
            <Link to="/admin/categories">Cancel</Link>
          </Button>
        </div>
      </form>
    </div>
  )
}
