/** The sign-in and sign-up form's rules and messages (SPEC.md §5). */
import { z } from '@/lib/zod'

export const authSchema = z.object({
  email: z.email({ error: 'Invalid email address' }),
  password: z.string().min(6, { error: 'Password must be at least 6 characters' }),
})
export type AuthForm = z.infer<typeof authSchema>
