/**
 * The shop's week (public.shop_hours, read by everyone through public.request_options()): for
 * each weekday whether it opens and from when to when. The footer, the contact page and the
 * request form show it; the database refuses requests for a closed weekday. No zod here: the
 * footer is on every page, the home page's included, so the footer reads the week with a plain
 * fetch of the REST API (lib/rest.ts, loaded after the first paint), never loading supabase-js
 * for it.
 */
import { useSyncExternalStore } from 'react'

/** One weekday: ISO number (1 Monday … 7 Sunday), and "HH:MM" times, both null when closed. */
export interface WeekDay {
  weekday: number
  opens: string | null
  closes: string | null
}

export const weekdayNames = [
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
] as const

/** The demo shop's week, as the migration sets it: shown until the shop's own arrives. */
export const defaultWeek: WeekDay[] = weekdayNames.map((_, i) =>
  i < 5
    ? { weekday: i + 1, opens: '09:00', closes: '18:00' }
    : i === 5
      ? { weekday: 6, opens: '10:00', closes: '16:00' }
      : { weekday: 7, opens: null, closes: null },
)

/** "9:00 AM" from "09:00". */
export function timeLabel(hhmm: string): string {
  const [h, m] = hhmm.split(':').map(Number)
  return `${((h + 11) % 12) + 1}:${String(m).padStart(2, '0')} ${h < 12 ? 'AM' : 'PM'}`
}

/** The week as the contact page and footer say it: consecutive days with the same hours in one
 * line ("Monday – Friday", "9:00 AM – 6:00 PM"; "Sunday", "Closed"). */
export function weekLines(week: WeekDay[]): { days: string; time: string }[] {
  const sorted = [...week].sort((a, b) => a.weekday - b.weekday)
  const lines: { first: number; last: number; time: string }[] = []
  for (const d of sorted) {
    const time = d.opens && d.closes ? `${timeLabel(d.opens)} – ${timeLabel(d.closes)}` : 'Closed'
    const prev = lines.at(-1)
    if (prev && prev.time === time && prev.last === d.weekday - 1) prev.last = d.weekday
    else lines.push({ first: d.weekday, last: d.weekday, time })
  }
  return lines.map((l) => ({
    days:
      l.first === l.last
        ? weekdayNames[l.first - 1]
        : `${weekdayNames[l.first - 1]} – ${weekdayNames[l.last - 1]}`,
    time: l.time,
  }))
}

/** The ISO weekday (1 Monday … 7 Sunday) of "YYYY-MM-DD". */
export const isoWeekday = (day: string) => ((new Date(`${day}T12:00:00Z`).getUTCDay() + 6) % 7) + 1

/** Whether the shop opens on that day's weekday (a weekday the week does not name is closed). */
export function opensOn(day: string, week: WeekDay[]): boolean {
  const d = week.find((w) => w.weekday === isoWeekday(day))
  return !!d?.opens
}

/** "Sundays" or "Sundays and Mondays": the weekdays the shop is closed, for the form's date note. */
export function closedWeekdays(week: WeekDay[]): string[] {
  return weekdayNames
    .filter((_, i) => !week.find((w) => w.weekday === i + 1)?.opens)
    .map((n) => `${n}s`)
}

/** The shop's week as the database has it now (throws when it cannot be read: for the admin). */
export async function readShopWeek(): Promise<WeekDay[]> {
  const { supabase } = await import('@/lib/supabase')
  const { data, error } = await supabase
    .from('shop_hours')
    .select('weekday, opens, closes')
    .order('weekday')
  if (error) throw error
  return data.map((d) => ({
    weekday: d.weekday,
    opens: d.opens?.slice(0, 5) ?? null,
    closes: d.closes?.slice(0, 5) ?? null,
  }))
}

let loading: Promise<WeekDay[]> | null = null
let loaded: WeekDay[] | null = null
const listeners = new Set<() => void>()

/** The shop's week, asked once per page load; the default week when it cannot be read. */
export function fetchShopWeek(): Promise<WeekDay[]> {
  loading ??= import('@/lib/rest')
    .then(({ callRpc }) => callRpc('request_options'))
    .then(
      (data) => {
        const hours = data ? (data as { hours?: WeekDay[] }).hours : undefined
        if (hours?.length === 7) {
          loaded = hours
          for (const l of listeners) l()
          return hours
        }
        loading = null
        return defaultWeek
      },
      () => {
        loading = null
        return defaultWeek
      },
    )
  return loading
}

/** Keeps what `fetchShopWeek` (or the request form) learnt, for every component showing the week. */
export function rememberShopWeek(week: WeekDay[]) {
  loaded = week
  loading = Promise.resolve(week)
  for (const l of listeners) l()
}

/** The shop's week for a component: the default one at first (no layout shift: the same lines
 * as the demo shop's), the shop's own once read. */
export function useShopWeek(): WeekDay[] {
  return useSyncExternalStore(subscribe, current, () => defaultWeek)
}

function subscribe(listener: () => void) {
  listeners.add(listener)
  void fetchShopWeek()
  return () => void listeners.delete(listener)
}

const current = () => loaded ?? defaultWeek
