/**
 * The bouquet request form's rules and messages (SPEC.md §5), shared by the form, its tests and,
 * word for word, the database's check (supabase/migrations/*_bouquet_requests.sql).
 */
import { z } from '@/lib/zod'
import { defaultWeek, opensOn, weekdayNames, isoWeekday, type WeekDay } from '@/features/hours/week'

export const bouquetSizes = [
  { value: 'good', label: 'Good', note: 'Classic' },
  { value: 'better', label: 'Better', note: 'Premium' },
  { value: 'best', label: 'Best', note: 'Luxury' },
] as const
export const bouquetColors = [
  'Pink',
  'Yellow',
  'Whites',
  'Purples',
  'Reds',
  'Oranges',
  'Blues',
  'Greens',
] as const
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

export const fulfilments = [
  { value: 'delivery', label: 'Delivery', note: 'We bring it to the recipient' },
  { value: 'pickup', label: 'Pick-up', note: 'You collect it at the shop' },
] as const

export const BOUQUET_LIMITS = {
  namedArrangement: 100,
  specialRequests: 2000,
  name: 200,
  phone: 50,
  email: 254,
  recipientName: 200,
  recipientPhone: 50,
  address: 500,
  cardMessage: 250,
} as const

/** What the shop says about dates and prices (public.request_options(); defaults offline). */
export interface RequestOptions {
  /** Today and the minutes since midnight, in the shop's time zone. */
  today: string
  minutes: number
  /** The same-day cut-off, "HH:MM" (24 h). */
  sameDayCutoff: string
  closed: { day: string; note: string }[]
  /** The shop's week: a weekday it does not open takes no requests. */
  week: WeekDay[]
  sizePrices?: Partial<Record<'good' | 'better' | 'best', number>>
}

/** Today ("YYYY-MM-DD") and the minutes since midnight in `timeZone`. */
export function shopClock(timeZone: string, now = new Date()): { today: string; minutes: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  )
  return {
    today: `${parts.year}-${parts.month}-${parts.day}`,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  }
}

/** The shop's defaults (Mountain time, 2 PM cut-off), for when its settings cannot be read. */
export function defaultOptions(now = new Date()): RequestOptions {
  return {
    ...shopClock('America/Denver', now),
    sameDayCutoff: '14:00',
    closed: [],
    week: defaultWeek,
  }
}

/** "2:00 PM" from "14:00". */
export function cutoffLabel(hhmm: string): string {
  const [h, m] = hhmm.split(':').map(Number)
  return `${((h + 11) % 12) + 1}:${String(m).padStart(2, '0')} ${h < 12 ? 'AM' : 'PM'}`
}

export const addDays = (day: string, n: number) => {
  const d = new Date(`${day}T12:00:00Z`)
  d.setUTCDate(d.getUTCDate() + n)
  return d.toISOString().slice(0, 10)
}

/** Why a day cannot be chosen, in the database's words (null: it can). */
export function dateProblem(day: string | undefined, o: RequestOptions): string | null {
  if (!day) return 'Please choose a date'
  if (day < o.today) return 'Please choose today or a later date'
  if (day > addDays(o.today, 365)) return 'Please choose a date within the next year'
  const [h, m] = o.sameDayCutoff.split(':').map(Number)
  if (day === o.today && o.minutes >= h * 60 + m) {
    return `Same-day orders must be placed before ${cutoffLabel(o.sameDayCutoff)}. Please choose a later date or call us.`
  }
  const closed = o.closed.find((c) => c.day === day)
  if (closed) return `We are closed that day (${closed.note}). Please choose another date.`
  if (!opensOn(day, o.week))
    return `We are closed on ${weekdayNames[isoWeekday(day) - 1]}s. Please choose another date.`
  return null
}

const fields = z.object({
  size: z.enum(values(bouquetSizes), { error: 'Please select a size' }),
  colors: z
    .array(z.enum(bouquetColors), { error: 'Please select at least one color' })
    .min(1, { error: 'Please select at least one color' }),
  designStyle: z.enum(values(designStyles), { error: 'Please select a design style' }),
  occasion: z.enum(values(bouquetOccasions), { error: 'Please select an occasion' }),
  namedArrangement: z.string().max(BOUQUET_LIMITS.namedArrangement).optional(),
  specialRequests: z
    .string()
    .max(BOUQUET_LIMITS.specialRequests, {
      error: `Special requests must be at most ${BOUQUET_LIMITS.specialRequests} characters`,
    })
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
    .max(BOUQUET_LIMITS.phone, {
      error: `Phone number must be at most ${BOUQUET_LIMITS.phone} characters`,
    }),
  customerEmail: z
    .email({ error: 'Valid email is required' })
    .max(BOUQUET_LIMITS.email, { error: 'Valid email is required' }),
  fulfilment: z.enum(values(fulfilments), { error: 'Please choose delivery or pick-up' }),
  wantedOn: z.string().optional(),
  recipientName: z
    .string()
    .trim()
    .max(BOUQUET_LIMITS.recipientName, {
      error: `Recipient name must be at most ${BOUQUET_LIMITS.recipientName} characters`,
    })
    .optional(),
  recipientPhone: z
    .string()
    .trim()
    .max(BOUQUET_LIMITS.recipientPhone, {
      error: `Recipient phone must be at most ${BOUQUET_LIMITS.recipientPhone} characters`,
    })
    .optional(),
  deliveryAddress: z
    .string()
    .trim()
    .max(BOUQUET_LIMITS.address, {
      error: `Delivery address must be at most ${BOUQUET_LIMITS.address} characters`,
    })
    .optional(),
  cardMessage: z
    .string()
    .trim()
    .max(BOUQUET_LIMITS.cardMessage, {
      error: `Card message must be at most ${BOUQUET_LIMITS.cardMessage} characters`,
    })
    .optional(),
  /** The honeypot: hidden from people, so only bots fill it. */
  website: z.string().optional(),
})

/** The form's schema for the shop's dates as `o` gives them. The date and the delivery fields
 * are checked whatever else is wrong, so one submit shows every problem. */
export function makeBouquetSchema(o: RequestOptions) {
  type Partly = {
    wantedOn?: unknown
    fulfilment?: unknown
    recipientName?: unknown
    deliveryAddress?: unknown
  }
  const blank = (v: unknown) => typeof v !== 'string' || v.trim() === ''
  return fields.check(
    z.superRefine(
      (r: Partly, ctx) => {
        const date = dateProblem(typeof r.wantedOn === 'string' ? r.wantedOn : undefined, o)
        if (date) ctx.addIssue({ code: 'custom', path: ['wantedOn'], message: date })
        if (r.fulfilment === 'delivery') {
          if (blank(r.recipientName))
            ctx.addIssue({
              code: 'custom',
              path: ['recipientName'],
              message: 'Recipient name is required',
            })
          if (blank(r.deliveryAddress))
            ctx.addIssue({
              code: 'custom',
              path: ['deliveryAddress'],
              message: 'Delivery address is required',
            })
        }
      },
      { when: () => true },
    ),
  )
}

export const bouquetSchema = makeBouquetSchema(defaultOptions())
export type BouquetRequest = z.infer<typeof fields>

export const sizeLabel = (v: string) => {
  const s = bouquetSizes.find((x) => x.value === v)
  return s ? `${s.label} (${s.note.toLowerCase()})` : v
}
export const styleLabel = (v: string) => designStyles.find((x) => x.value === v)?.label ?? v
export const occasionLabel = (v: string) => bouquetOccasions.find((x) => x.value === v)?.label ?? v
export const fulfilmentLabel = (v: string | null) =>
  fulfilments.find((x) => x.value === v)?.label ?? 'Not given'
/** "$45.00". */
export const price = (n: number) => `$${n.toFixed(2)}`
/** "Thursday, November 26, 2026" for "2026-11-26". */
export const longDate = (day: string) =>
  new Date(`${day}T12:00:00Z`).toLocaleDateString('en-US', {
    weekday: 'long',
    month: 'long',
    day: 'numeric',
    year: 'numeric',
    timeZone: 'UTC',
  })
