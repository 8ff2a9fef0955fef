/** Prices as the spec shows them: a dollar sign and two decimals. */
export function formatPrice(value: number | string | null | undefined): string {
  const n = typeof value === 'string' ? Number.parseFloat(value) : (value ?? 0)
  return `$${(Number.isFinite(n) ? n : 0).toFixed(2)}`
}
