/** The category form's rules and messages (SPEC.md §5). */
import { z } from '@/lib/zod'
import { optionalText } from '@/lib/forms'

export const categorySchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, { error: 'Name is required' })
    .max(255, { error: 'Name must be at most 255 characters' }),
  slug: z
    .string()
    .trim()
    .min(1, { error: 'Slug is required' })
    .max(255, { error: 'Slug must be at most 255 characters' })
    .regex(/^[a-z0-9-]+$/, { error: 'Slug must be lowercase with hyphens' }),
  description: optionalText,
  image_url: optionalText,
  order_by: z
    .number({ error: 'Order must be 0 or more' })
    .int()
    .min(0, { error: 'Order must be 0 or more' }),
  is_available: z.boolean(),
})
export type CategoryForm = z.infer<typeof categorySchema>

export const categoryDefaults: CategoryForm = {
  name: '',
  slug: '',
  description: '',
  image_url: '',
  order_by: 0,
  is_available: true,
}

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
