/** Studio's keyboard shortcuts: which key combinations do what, and the pure checks the
 * listeners use. Single keys (`?`, `g` then a letter) never fire while one types in a field or
 * the SQL editor; combinations with Ctrl/Cmd or Alt do, as listed. */

export interface KeyLike {
  key: string
  code: string
  ctrlKey: boolean
  metaKey: boolean
  altKey: boolean
  shiftKey: boolean
}

/** A combination: `mod` is Cmd on macOS, Ctrl elsewhere; a letter is matched by its key code
 * (Alt changes the character a letter types on macOS). */
export interface Combo {
  key?: string
  code?: string
  mod?: boolean
  alt?: boolean
  shift?: boolean
}

export function isMac(platform: string): boolean {
  return /mac|iphone|ipad/i.test(platform)
}

export function matches(e: KeyLike, c: Combo, mac: boolean): boolean {
  const mod = mac ? e.metaKey : e.ctrlKey
  const other = mac ? e.ctrlKey : e.metaKey
  if (other || mod !== !!c.mod || e.altKey !== !!c.alt || e.shiftKey !== !!c.shift) return false
  if (c.code) return e.code === c.code
  return c.key !== undefined && e.key.toLowerCase() === c.key.toLowerCase()
}

/** The combination as it is written for people: "Ctrl+Shift+Alt+F" or "⌘⇧⌥F". */
export function comboLabel(c: Combo, mac: boolean): string {
  const raw = c.code ? c.code.replace(/^Key/, '') : (c.key ?? '')
  const key = raw.length === 1 ? raw.toUpperCase() : raw
  const parts = mac
    ? [c.mod ? '⌘' : '', c.shift ? '⇧' : '', c.alt ? '⌥' : '', key]
    : [c.mod ? 'Ctrl' : '', c.shift ? 'Shift' : '', c.alt ? 'Alt' : '', key]
  return parts.filter(Boolean).join(mac ? '' : '+')
}

/** Where `g` then a letter goes. */
export const GO_TO: { letter: string; to: string; label: string }[] = [
  { letter: 't', to: '/tables', label: 'Table editor' },
  { letter: 's', to: '/sql', label: 'SQL editor' },
  { letter: 'd', to: '/database', label: 'Database' },
  { letter: 'u', to: '/auth/users', label: 'Authentication: users' },
  { letter: 'b', to: '/storage', label: 'Storage (buckets)' },
  { letter: 'r', to: '/realtime', label: 'Realtime' },
  { letter: 'f', to: '/functions', label: 'Edge Functions' },
  { letter: 'l', to: '/logs', label: 'Logs' },
  { letter: 'a', to: '/api-docs', label: 'API docs' },
  { letter: 'p', to: '/settings', label: 'Project settings' },
]

export const TOGGLE_THEME: Combo = { code: 'KeyT', alt: true, shift: true }

/** The SQL editor's combinations (they work in the editor too). */
export const SQL_KEYS = {
  run: { key: 'Enter', mod: true } as Combo,
  format: { code: 'KeyF', alt: true, shift: true } as Combo,
  newTab: { code: 'KeyN', alt: true } as Combo,
  save: { key: 's', mod: true } as Combo,
}

/** Whether a key press is typing: it comes from a field, a list box or an editable text. */
export function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null
  if (!el || typeof el.tagName !== 'string') return false
  const tag = el.tagName.toLowerCase()
  return (
    tag === 'input' ||
    tag === 'textarea' ||
    tag === 'select' ||
    el.isContentEditable ||
    el.closest?.('[contenteditable="true"], .cm-editor') != null
  )
}

/** The step a single key takes in the `g`-then-letter sequence: the page to open, waiting for
 * the letter after `g`, or nothing. */
export function goStep(pendingG: boolean, e: KeyLike): { to: string } | 'wait' | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null
  const k = e.key.toLowerCase()
  if (pendingG) {
    const hit = GO_TO.find((g) => g.letter === k)
    if (hit) return { to: hit.to }
  }
  return k === 'g' && !e.shiftKey ? 'wait' : null
}
