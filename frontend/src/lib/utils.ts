import { clsx, type ClassValue } from 'clsx'
import { twMerge } from 'tailwind-merge'

export function cn(...inputs: ClassValue[]) {
  return twMerge(clsx(inputs))
}

/** Prices as the spec shows them: a dollar sign and two decimals. */
export function formatPrice(value: number | string | null | undefined): string {
  const n = typeof value === 'string' ? Number.parseFloat(value) : (value ?? 0)
  return `$${(Number.isFinite(n) ? n : 0).toFixed(2)}`
}
