/** The CSV import's one call: every row applied in one transaction (`apply_import`). */
import { supabase } from '@/lib/supabase'
import type { ImportResult, ImportRow } from './csv'

/** Rows one import may hold (the database function's limit). */
export const MAX_IMPORT_ROWS = 5000

export async function applyImport(rows: ImportRow[]): Promise<ImportResult[]> {
  const { data, error } = await supabase.rpc('apply_import', {
    rows: rows.map((r) => ({ sku: r.sku, name: r.name, product_internal_id: r.productInternalId })),
  })
  if (error) throw new Error(error.message)
  return data.map((r) => ({
    sku: r.sku,
    name: r.name,
    status: r.status as ImportResult['status'],
    message: r.message,
    productInternalId: r.product_internal_id,
  }))
}
