/** The staff page's forms: an account's e-mail to make an administrator, the shop's inbox address. */
import { z } from '@/lib/zod'

export const grantSchema = z.object({
  email: z.email({ error: 'Invalid email address' }),
})
export type GrantForm = z.infer<typeof grantSchema>

export const notifySchema = z.object({
  notify_email: z.union([z.email({ error: 'Invalid email address' }), z.literal('')]),
})
export type NotifyForm = z.infer<typeof notifySchema>
