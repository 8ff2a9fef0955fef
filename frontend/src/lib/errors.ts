/**
 * What to tell a person when the service refuses something: the database's own message where
 * it is written for people (the shop's checks), plain words where it is PostgreSQL's.
 */
export interface ServiceError {
  message: string
  code?: string
  details?: string | null
  hint?: string | null
}

const uniqueMessages: Record<string, string> = {
  products_sku_key: 'Another product already uses this SKU. Choose a different one.',
  categories_slug_key: 'Another category already uses this slug. Choose a different one.',
}

export function describeError(e: ServiceError): string {
  const constraint = /constraint "([^"]+)"/.exec(e.message)?.[1]
  switch (e.code) {
    case '23505':
      return (
        (constraint && uniqueMessages[constraint]) ||
        'This value is already in use. Choose a different one.'
      )
    case '23503':
      return 'Something this refers to no longer exists. Reload the page and try again.'
    case '42501':
      return 'Your account may not do this: only shop administrators can.'
    case '23514':
      return constraint
        ? 'A value is outside what the shop accepts. Check the fields and try again.'
        : e.message
    case 'PGRST301':
    case 'PGRST303':
      return 'Your session has expired. Sign in again.'
  }
  if (isUnreachable(e)) {
    return 'The shop could not be reached. Check your connection and try again.'
  }
  return e.hint ? `${e.message}. ${e.hint}` : e.message
}

/** Whether a failure means the server could not be reached (offline, the server down or
 * restarting), not that it refused: worth retrying by itself. */
export function isUnreachable(e: unknown): boolean {
  if (!e || typeof e !== 'object') return false
  const { message, status, code } = e as { message?: string; status?: number; code?: string }
  return (
    /Failed to fetch|NetworkError|Load failed|fetch failed|ERR_CONNECTION|ECONNREFUSED|timed out/i.test(
      message ?? '',
    ) ||
    status === 502 ||
    status === 503 ||
    status === 504 ||
    code === 'PGRST003'
  )
}
