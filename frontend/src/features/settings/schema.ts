/** The shop settings form's rules: the same limits as the database's checks (shop_settings). */
import { z } from '@/lib/zod'

const email = z.union([z.email({ error: 'Invalid email address' }).max(254), z.literal('')])
const amount = z
  .number({ error: 'Price must be a number' })
  .min(0, { error: 'Price must be positive' })
  .max(100000)

export const settingsSchema = z.object({
  shop_name: z
    .string()
    .trim()
    .min(1, { error: 'Name is required' })
    .max(100, { error: 'Name must be at most 100 characters' })
    .refine((v) => !/[<>"]/.test(v), { error: 'Name may not contain <, > or "' }),
  shop_email: email,
  shop_phone: z.string().trim().min(1, { error: 'Phone number is required' }).max(50),
  site_url: z.union([
    z
      .url({
        protocol: /^https?$/,
        error: 'Enter the address the site is at, starting with https://',
      })
      .max(200),
    z.literal(''),
  ]),
  same_day_cutoff: z.string().regex(/^\d{2}:\d{2}$/, { error: 'Choose a time' }),
  good: amount,
  better: amount,
  best: amount,
})
export type SettingsForm = z.infer<typeof settingsSchema>

export const closureSchema = z.object({
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'Choose a date' }),
  note: z
    .string()
    .trim()
    .min(1, { error: 'Say why, e.g. Christmas Day' })
    .max(100, { error: 'At most 100 characters' }),
})
export type ClosureForm = z.infer<typeof closureSchema>
