import { clsx, type ClassValue } from 'clsx'

/**
 * Joins class names without tailwind-merge's conflict resolution: for what the home page loads
 * (the site's header and menu, Button), whose class lists never set one property twice. Keeping
 * tailwind-merge out of the first chunk saves 7 KB of the home page's script; everything else
 * uses `cn` from './utils'.
 */
export function cx(...inputs: ClassValue[]) {
  return clsx(inputs)
}
