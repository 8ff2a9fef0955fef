/** The Settings form of the shop's week: the same rules as the database's (public.shop_hours). */
import { z } from '@/lib/zod'
import type { WeekDay } from './week'

const hhmm = /^([01]\d|2[0-3]):[0-5]\d$/

const day = z
  .object({
    weekday: z.number().int().min(1).max(7),
    open: z.boolean(),
    opens: z.string(),
    closes: z.string(),
  })
  .superRefine((d, ctx) => {
    if (!d.open) return
    if (!hhmm.test(d.opens))
      ctx.addIssue({ code: 'custom', path: ['opens'], message: 'Choose an opening time' })
    if (!hhmm.test(d.closes))
      ctx.addIssue({ code: 'custom', path: ['closes'], message: 'Choose a closing time' })
    else if (hhmm.test(d.opens) && d.closes <= d.opens) {
      ctx.addIssue({
        code: 'custom',
        path: ['closes'],
        message: 'Closing time must be after opening time',
      })
    }
  })

export const hoursSchema = z.object({
  days: z.array(day).length(7),
})
export type HoursForm = z.infer<typeof hoursSchema>

/** The form's values for a week (a closed day keeps empty times). */
export const hoursForm = (week: WeekDay[]): HoursForm => ({
  days: [...week]
    .sort((a, b) => a.weekday - b.weekday)
    .map((d) => ({
      weekday: d.weekday,
      open: !!d.opens,
      opens: d.opens ?? '',
      closes: d.closes ?? '',
    })),
})

/** The week the form describes, as the database stores it. */
export const weekOf = (f: HoursForm): WeekDay[] =>
  f.days.map((d) =>
    d.open
      ? { weekday: d.weekday, opens: d.opens, closes: d.closes }
      : { weekday: d.weekday, opens: null, closes: null },
  )
