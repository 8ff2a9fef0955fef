import { describe, expect, it } from 'vitest'
import {
  comboLabel,
  goStep,
  isMac,
  matches,
  SQL_KEYS,
  TOGGLE_THEME,
  type KeyLike,
} from './shortcuts'

const press = (over: Partial<KeyLike>): KeyLike => ({
  key: '',
  code: '',
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...over,
})

describe('shortcuts', () => {
  it('matches Ctrl on Linux and Cmd on macOS, exactly', () => {
    const cases: [Partial<KeyLike>, boolean, boolean][] = [
      [{ key: 'Enter', ctrlKey: true }, false, true],
      [{ key: 'Enter', metaKey: true }, false, false],
      [{ key: 'Enter', metaKey: true }, true, true],
      [{ key: 'Enter', ctrlKey: true }, true, false],
      [{ key: 'Enter', ctrlKey: true, shiftKey: true }, false, false],
      [{ key: 'Enter' }, false, false],
    ]
    for (const [e, mac, hit] of cases)
      expect(matches(press(e), SQL_KEYS.run, mac), JSON.stringify(e)).toBe(hit)
  })

  it('matches Alt combinations by key code (macOS types another character)', () => {
    const format = press({ key: 'Ï', code: 'KeyF', altKey: true, shiftKey: true })
    expect(matches(format, SQL_KEYS.format, true)).toBe(true)
    expect(matches(press({ key: 'F', code: 'KeyF', shiftKey: true }), SQL_KEYS.format, false)).toBe(
      false,
    )
    expect(
      matches(press({ key: 'T', code: 'KeyT', altKey: true, shiftKey: true }), TOGGLE_THEME, false),
    ).toBe(true)
  })

  it('writes combinations for each platform', () => {
    expect(comboLabel(SQL_KEYS.format, false)).toBe('Shift+Alt+F')
    expect(comboLabel(SQL_KEYS.format, true)).toBe('⇧⌥F')
    expect(comboLabel(SQL_KEYS.run, false)).toBe('Ctrl+Enter')
    expect(comboLabel(SQL_KEYS.save, true)).toBe('⌘S')
    expect(isMac('MacIntel')).toBe(true)
    expect(isMac('Linux x86_64')).toBe(false)
  })

  it('goes to a page with g then its letter', () => {
    expect(goStep(false, press({ key: 'g' }))).toBe('wait')
    expect(goStep(true, press({ key: 't' }))).toEqual({ to: '/tables' })
    expect(goStep(true, press({ key: 'p' }))).toEqual({ to: '/settings' })
    expect(goStep(false, press({ key: 't' }))).toBe(null)
    expect(goStep(true, press({ key: 'z' }))).toBe(null)
    expect(goStep(true, press({ key: 't', ctrlKey: true }))).toBe(null)
    expect(goStep(false, press({ key: 'G', shiftKey: true }))).toBe(null)
  })
})
