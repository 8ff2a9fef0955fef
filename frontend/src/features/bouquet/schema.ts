/**
 * The bouquet request form's rules and messages (SPEC.md §5), shared by the form, its tests and,
 * word for word, the database's check (supabase/migrations/*_bouquet_requests.sql).
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

export const BOUQUET_LIMITS = { namedArrangement: 100, specialRequests: 2000, name: 200, phone: 50, email: 254 } as const

export const bouquetSchema = z.object({
  size: z.enum(values(bouquetSizes), { error: 'Please select a size' }),
  colors: z.array(z.enum(bouquetColors), { error: 'Please select at least one color' }).min(1, { error: 'Please select at least one color' }),
  designStyle: z.enum(values(designStyles), { error: 'Please select a design style' }),
  occasion: z.enum(values(bouquetOccasions), { error: 'Please select an occasion' }),
  namedArrangement: z.string().max(BOUQUET_LIMITS.namedArrangement).optional(),
  specialRequests: z
    .string()
    .max(BOUQUET_LIMITS.specialRequests, { error: `Special requests must be at most ${BOUQUET_LIMITS.specialRequests} characters` })
    .optional(),
  customerName: z
    .string({ error: 'Name is required' })
    .trim()
    .min(1, { error: 'Name is required' })
    .max(BOUQUET_LIMITS.name, { error: `Name must be at most ${BOUQUET_LIMITS.name} characters` }),
  customerPhone: z
    .string({ error: 'Phone number is required' })
    .trim()
    .min(1, { error: 'Phone number is required' })
    .max(BOUQUET_LIMITS.phone, { error: `Phone number must be at most ${BOUQUET_LIMITS.phone} characters` }),
  customerEmail: z.email({ error: 'Valid email is required' }).max(BOUQUET_LIMITS.email, { error: 'Valid email is required' }),
  /** The honeypot: hidden from people, so only bots fill it. */
  website: z.string().optional(),
})
export type BouquetRequest = z.infer<typeof bouquetSchema>

export const sizeLabel = (v: string) => {
  const s = bouquetSizes.find((x) => x.value === v)
  return s ? `${s.label} (${s.note.toLowerCase()})` : v
}
export const styleLabel = (v: string) => designStyles.find((x) => x.value === v)?.label ?? v
export const occasionLabel = (v: string) => bouquetOccasions.find((x) => x.value === v)?.label ?? v
