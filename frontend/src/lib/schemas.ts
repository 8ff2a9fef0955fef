/**
 * Form rules and messages of SPEC.md §5, shared by the forms and their tests.
 */
import { z } from 'zod'

export const bouquetSizes = [
  { value: 'good', label: 'Good', note: 'Classic' },
  { value: 'better', label: 'Better', note: 'Premium' },
  { value: 'best', label: 'Best', note: 'Luxury' },
] as const
export const bouquetColors = ['Pink', 'Yellow', 'Whites', 'Purples', 'Reds', 'Oranges', 'Blues', 'Greens'] as const
export const designStyles = [
  { value: 'modern', label: 'Modern' },
  { value: 'traditional', label: 'Traditional' },
  { value: 'rustic', label: 'Rustic' },
] as const
export const bouquetOccasions = [
  { value: 'seasonal', label: 'Seasonal' },
  { value: 'best-sellers', label: 'Best Sellers' },
  { value: 'everyday', label: 'Everyday' },
  { value: 'birthday', label: 'Birthday' },
  { value: 'get-well', label: 'Get Well' },
  { value: 'baby', label: 'Baby' },
  { value: 'love-romance', label: 'Love & Romance' },
  { value: 'designers-choice', label: "Designer's Choice" },
  { value: 'plants', label: 'Plants' },
  { value: 'dance-flowers', label: 'Dance Flowers' },
  { value: 'sympathy', label: 'Sympathy' },
  { value: 'service', label: 'Service' },
  { value: 'home', label: 'Home' },
] as const

const values = <T extends readonly { value: string }[]>(items: T) =>
  items.map((i) => i.value) as unknown as [T[number]['value'], ...T[number]['value'][]]

export const bouquetSchema = z.object({
  size: z.enum(values(bouquetSizes), { error: 'Please select a size' }),
  colors: z.array(z.enum(bouquetColors), { error: 'Please select at least one color' }).min(1, { error: 'Please select at least one color' }),
  designStyle: z.enum(values(designStyles), { error: 'Please select a design style' }),
  occasion: z.enum(values(bouquetOccasions), { error: 'Please select an occasion' }),
  namedArrangement: z.string().optional(),
  specialRequests: z.string().optional(),
  customerName: z.string({ error: 'Name is required' }).trim().min(1, { error: 'Name is required' }),
  customerPhone: z.string({ error: 'Phone number is required' }).trim().min(1, { error: 'Phone number is required' }),
  customerEmail: z.email({ error: 'Valid email is required' }),
})
export type BouquetRequest = z.infer<typeof bouquetSchema>

export const authSchema = z.object({
  email: z.email({ error: 'Invalid email address' }),
  password: z.string().min(6, { error: 'Password must be at least 6 characters' }),
})
export type AuthForm = z.infer<typeof authSchema>

const optionalText = z.string().trim().optional().or(z.literal(''))

export const productSchema = z.object({
  name: z.string().trim().min(1, { error: 'Name is required' }).max(255, { error: 'Name must be at most 255 characters' }),
  sku: z.string().trim().max(100, { error: 'SKU must be at most 100 characters' }).optional().or(z.literal('')),
  description: optionalText,
  base_price: z.number({ error: 'Price must be positive' }).min(0, { error: 'Price must be positive' }),
  category_id: z.union([z.uuid({ error: 'Choose a category' }), z.literal('')]),
  additional_category_ids: z.array(z.uuid()),
  main_image_url: optionalText,
  is_available: z.boolean(),
  is_featured: z.boolean(),
  ecwid_product_id: optionalText,
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

export const categorySchema = z.object({
  name: z.string().trim().min(1, { error: 'Name is required' }).max(255, { error: 'Name must be at most 255 characters' }),
  slug: z
    .string()
    .trim()
    .min(1, { error: 'Slug is required' })
    .max(255, { error: 'Slug must be at most 255 characters' })
    .regex(/^[a-z0-9-]+$/, { error: 'Slug must be lowercase with hyphens' }),
  description: optionalText,
  image_url: optionalText,
  order_by: z.number({ error: 'Order must be 0 or more' }).int().min(0, { error: 'Order must be 0 or more' }),
  is_available: z.boolean(),
})
export type CategoryForm = z.infer<typeof categorySchema>

export const categoryDefaults: CategoryForm = { name: '', slug: '', description: '', image_url: '', order_by: 0, is_available: true }

/** A category slug derived from its name: lower case, letters and digits joined by hyphens. */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
}

export const MAX_IMAGE_BYTES = 5 * 1024 * 1024
export const ACCEPTED_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const

/** Checks an image before upload; returns the message to show, or null when it may be uploaded. */
export function validateImageFile(file: { type: string; size: number }): string | null {
  if (!file.type.startsWith('image/')) return 'Please upload an image file'
  if (!(ACCEPTED_IMAGE_TYPES as readonly string[]).includes(file.type)) return 'Please upload a PNG, JPG or WEBP image'
  if (file.size >= MAX_IMAGE_BYTES) return 'File size must be less than 5MB'
  return null
}
