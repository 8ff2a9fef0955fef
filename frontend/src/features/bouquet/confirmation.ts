/**
 * What the confirmation page shows after a request is sent: kept in this tab's session storage
 * under its reference, so the page survives a reload and can be printed or kept.
 */
import type { BouquetRequest } from './schema'

export interface Confirmation {
  reference: string
  request: BouquetRequest
  price?: number
}

const key = (reference: string) => `bouquet-request:${reference}`

export function keepConfirmation(reference: string, request: BouquetRequest, price?: number) {
  try {
    sessionStorage.setItem(key(reference), JSON.stringify({ reference, request, price }))
  } catch {
    // Storage may be full or off: the page then shows the reference alone.
  }
}

export function readConfirmation(reference: string): Confirmation | null {
  try {
    const raw = sessionStorage.getItem(key(reference))
    return raw ? (JSON.parse(raw) as Confirmation) : null
  } catch {
    return null
  }
}
