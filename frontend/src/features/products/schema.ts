/** The product form's rules and messages (SPEC.md §5). */
import { z } from '@/lib/zod'
import { optionalText } from '@/lib/forms'

export const productSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, { error: 'Name is required' })
    .max(255, { error: 'Name must be at most 255 characters' }),
  sku: z
    .string()
    .trim()
    .max(100, { error: 'SKU must be at most 100 characters' })
    .optional()
    .or(z.literal('')),
  description: optionalText,
  base_price: z
    .number({ error: 'Price must be positive' })
    .min(0, { error: 'Price must be positive' }),
  category_id: z.union([z.uuid({ error: 'Choose a category' }), z.literal('')]),
  additional_category_ids: z.array(z.uuid()),
  main_image_url: optionalText,
  is_available: z.boolean(),
  is_featured: z.boolean(),
  ecwid_product_id: z
    .string()
    .trim()
    .max(100, { error: 'Store product id must be at most 100 characters' })
    .optional()
    .or(z.literal('')),
  ecwid_product_slug: optionalText,
})
export type ProductForm = z.infer<typeof productSchema>

export const productDefaults: ProductForm = {
  name: '',
  sku: '',
  description: '',
  base_price: 0,
  category_id: '',
  additional_category_ids: [],
  main_image_url: '',
  is_available: true,
  is_featured: false,
  ecwid_product_id: '',
  ecwid_product_slug: '',
}
