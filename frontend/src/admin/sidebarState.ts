/** The admin sidebar's remembered state (SPEC.md §9): a cookie kept for 7 days. */
export const SIDEBAR_COOKIE = 'sidebar_state'
export const SIDEBAR_COOKIE_MAX_AGE = 60 * 60 * 24 * 7
export const SIDEBAR_WIDTH = '16rem'
export const SIDEBAR_WIDTH_ICON = '3rem'
export const SIDEBAR_WIDTH_MOBILE = '18rem'
export const SIDEBAR_SHORTCUT = 'b'

export function readSidebarCookie(cookie: string): boolean | null {
  const m = cookie.match(new RegExp(`(?:^|;\\s*)${SIDEBAR_COOKIE}=(true|false)`))
  return m ? m[1] === 'true' : null
}

export function sidebarCookie(open: boolean): string {
  return `${SIDEBAR_COOKIE}=${open}; path=/; max-age=${SIDEBAR_COOKIE_MAX_AGE}; samesite=lax`
}

/** Whether key presses on this element are typing (where Ctrl/Cmd+B means bold, not the sidebar). */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!target || typeof (target as Element).closest !== 'function') return false
  const el = target as HTMLElement
  if (el.isContentEditable) return true
  return !!el.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]')
}

/** Ctrl+B or Cmd+B toggles the sidebar, except while typing in a field. */
export function isToggleShortcut(
  e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'target'>,
): boolean {
  return (
    e.key.toLowerCase() === SIDEBAR_SHORTCUT &&
    (e.ctrlKey || e.metaKey) &&
    !isTypingTarget(e.target)
  )
}
