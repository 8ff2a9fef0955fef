import { z } from '@/lib/zod'

/** An optional text field: trimmed, and empty is as good as absent. */
export const optionalText = z.string().trim().optional().or(z.literal(''))

/** What a form's optional text stores: null for empty. */
export const nullIfEmpty = (v: string | undefined | null) =>
  v && v.trim() !== '' ? v.trim() : null
