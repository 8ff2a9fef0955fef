/** Sends a bouquet request to the shop (table bouquet_requests; RLS lets visitors insert). */
import type { PostgrestError } from '@supabase/supabase-js'
import { supabase } from '@/lib/supabase'
import type { BouquetRequest } from './schema'

/** The row the form's fields become (snake_case; empty optional fields are null). */
export function requestRow(r: BouquetRequest) {
  return {
    size: r.size,
    colors: r.colors,
    design_style: r.designStyle,
    occasion: r.occasion,
    named_arrangement: r.namedArrangement?.trim() || null,
    special_requests: r.specialRequests?.trim() || null,
    customer_name: r.customerName.trim(),
    customer_phone: r.customerPhone.trim(),
    customer_email: r.customerEmail.trim(),
    website: r.website?.trim() || null,
  }
}

/** Inserts the request; resolves to the service's error, or null when the shop has it. */
export async function submitBouquetRequest(r: BouquetRequest): Promise<PostgrestError | null> {
  const { error } = await supabase.from('bouquet_requests').insert(requestRow(r))
  return error
}
