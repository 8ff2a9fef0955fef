import { clsx, type ClassValue } from 'clsx'
import { twMerge } from 'tailwind-merge'

export function cn(...inputs: ClassValue[]) {
  return twMerge(clsx(inputs))
}

// Kept here for the pages that import it with `cn`; the home page's cards import lib/price.ts
// (no tailwind-merge).
export { formatPrice } from './price'
