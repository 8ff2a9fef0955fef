import Papa from 'papaparse'

export interface ImportRow {
  sku: string
  name: string
  productInternalId: string
}

export interface ParsedCsv {
  rows: ImportRow[]
  skipped: number
  missingColumns: string[]
}

export const REQUIRED_COLUMNS = ['product_sku', 'product_internal_id'] as const

/**
 * Reads an export of the store: header with product_sku and product_internal_id (product_name
 * optional). A real CSV parser, so quoted fields, commas inside quotes, CRLF and a BOM work;
 * files a plain comma split reads give the same result. Rows missing the sku or the id are skipped.
 */
export function parseImportCsv(text: string): ParsedCsv {
  const parsed = Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: 'greedy',
    transformHeader: (h) => h.trim().toLowerCase(),
  })
  const headers = parsed.meta.fields ?? []
  const missingColumns = REQUIRED_COLUMNS.filter((c) => !headers.includes(c))
  if (missingColumns.length > 0) return { rows: [], skipped: 0, missingColumns }
  const rows: ImportRow[] = []
  let skipped = 0
  for (const r of parsed.data) {
    const sku = (r.product_sku ?? '').trim()
    const id = (r.product_internal_id ?? '').trim()
    if (!sku || !id) {
      skipped++
      continue
    }
    rows.push({ sku, name: (r.product_name ?? '').trim(), productInternalId: id })
  }
  return { rows, skipped, missingColumns }
}

export function missingColumnsMessage(missing: readonly string[]): string {
  return `The CSV file is missing required column${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}. The header must include product_sku and product_internal_id.`
}

export type ImportStatus = 'success' | 'not_found' | 'error'

/** How each status reads in the results list. */
export const statusLabel: Record<ImportStatus, string> = {
  success: 'Updated',
  not_found: 'Not found',
  error: 'Failed',
}

export interface ImportResult {
  sku: string
  name: string
  status: ImportStatus
  message: string
  productInternalId: string
}

/** The summary toasts of SPEC.md §8, for the counts that are not zero. */
export function importSummary(results: ImportResult[]): string[] {
  const n = (s: ImportStatus) => results.filter((r) => r.status === s).length
  const lines: string[] = []
  if (n('success')) lines.push(`Successfully updated ${n('success')} product(s)`)
  if (n('error')) lines.push(`${n('error')} product(s) failed to update`)
  if (n('not_found')) lines.push(`${n('not_found')} product(s) not found`)
  return lines
}
