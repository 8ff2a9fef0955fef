/** Light or dark: the one chosen last (kept in the browser), else the system's. */
export type Theme = 'light' | 'dark'

const KEY = 'studio.theme'

export function initialTheme(stored: string | null, systemDark: boolean): Theme {
  if (stored === 'light' || stored === 'dark') return stored
  return systemDark ? 'dark' : 'light'
}

export function applyTheme(t: Theme) {
  document.documentElement.classList.toggle('dark', t === 'dark')
  document.documentElement.style.colorScheme = t
}

export function loadTheme(): Theme {
  let stored: string | null = null
  try {
    stored = localStorage.getItem(KEY)
  } catch {
    stored = null
  }
  return initialTheme(stored, window.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false)
}

export function storeTheme(t: Theme) {
  localStorage.setItem(KEY, t)
  applyTheme(t)
}
