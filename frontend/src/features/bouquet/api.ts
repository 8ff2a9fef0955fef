/**
 * Sends a bouquet request to the shop (table bouquet_requests; RLS lets visitors insert) and
 * reads what the form needs to know (public.request_options()).
 */
import type { PostgrestError } from '@supabase/supabase-js'
import { supabase } from '@/lib/supabase'
import { rememberShopWeek, type WeekDay } from '@/features/hours/week'
import { defaultOptions, shopClock, type BouquetRequest, type RequestOptions } from './schema'

/** The row the form's fields become (snake_case; empty optional fields are null). `id` is made
 * once per request, so sending it again after a lost answer cannot make a second request. */
export function requestRow(r: BouquetRequest, id: string) {
  const delivery = r.fulfilment === 'delivery'
  return {
    id,
    size: r.size,
    colors: r.colors,
    design_style: r.designStyle,
    occasion: r.occasion,
    named_arrangement: r.namedArrangement?.trim() || null,
    special_requests: r.specialRequests?.trim() || null,
    customer_name: r.customerName.trim(),
    customer_phone: r.customerPhone.trim(),
    customer_email: r.customerEmail.trim(),
    fulfilment: r.fulfilment,
    wanted_on: r.wantedOn || null,
    recipient_name: delivery ? r.recipientName?.trim() || null : null,
    recipient_phone: delivery ? r.recipientPhone?.trim() || null : null,
    delivery_address: delivery ? r.deliveryAddress?.trim() || null : null,
    card_message: r.cardMessage?.trim() || null,
    website: r.website?.trim() || null,
  }
}

/** The reference a customer quotes: the first eight hex digits of the id (as the database's). */
export const referenceOf = (id: string) => id.replaceAll('-', '').slice(0, 8).toUpperCase()

/** Inserts the request; resolves to the service's error, or null when the shop has it. A request
 * the shop already has (this id, sent before an answer was lost) counts as sent. */
export async function submitBouquetRequest(
  r: BouquetRequest,
  id: string,
): Promise<PostgrestError | null> {
  const { error } = await supabase.from('bouquet_requests').insert(requestRow(r, id))
  if (error?.code === '23505' && /bouquet_requests_pkey/.test(error.message)) return null
  return error
}

interface OptionsRow {
  time_zone: string
  same_day_cutoff: string
  size_prices: Record<'good' | 'better' | 'best', number>
  closed: { day: string; note: string }[]
  hours: WeekDay[]
}

/** The shop's dates and prices; its defaults when they cannot be read (the database checks the
 * request again anyway). */
export async function fetchRequestOptions(now = new Date()): Promise<RequestOptions> {
  const { data, error } = await supabase.rpc('request_options')
  if (error || !data) return defaultOptions(now)
  const o = data as unknown as OptionsRow
  const base = defaultOptions(now)
  if (o.hours?.length === 7) rememberShopWeek(o.hours)
  return {
    ...shopClock(o.time_zone, now),
    sameDayCutoff: o.same_day_cutoff,
    closed: o.closed,
    sizePrices: o.size_prices,
    week: o.hours?.length === 7 ? o.hours : base.week,
  }
}
