/** The admin sidebar's remembered state (SPEC.md §9): a cookie kept for 7 days. */
export const SIDEBAR_COOKIE = 'sidebar_state'
export const SIDEBAR_COOKIE_MAX_AGE = 60 * 60 * 24 * 7
export const SIDEBAR_WIDTH = '16rem'
export const SIDEBAR_WIDTH_ICON = '3rem'
export const SIDEBAR_WIDTH_MOBILE = '18rem'
export const MOBILE_BREAKPOINT = 768
export const SIDEBAR_SHORTCUT = 'b'

export function readSidebarCookie(cookie: string): boolean | null {
  const m = cookie.match(new RegExp(`(?:^|;\\s*)${SIDEBAR_COOKIE}=(true|false)`))
  return m ? m[1] === 'true' : null
}

export function sidebarCookie(open: boolean): string {
  return `${SIDEBAR_COOKIE}=${open}; path=/; max-age=${SIDEBAR_COOKIE_MAX_AGE}; samesite=lax`
}

/** Ctrl+B or Cmd+B toggles the sidebar. */
export function isToggleShortcut(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey'>): boolean {
  return e.key.toLowerCase() === SIDEBAR_SHORTCUT && (e.ctrlKey || e.metaKey)
}
