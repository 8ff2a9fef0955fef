/**
 * The mobile menu's states (SPEC.md §4): closed → opening (600 ms) → open. A click on the toggle
 * while it is opening or open closes it at once; choosing a link closes it.
 */
export type MenuState = 'closed' | 'opening' | 'open'
export type MenuEvent = 'toggle' | 'opened' | 'close'

export const MENU_OPENING_MS = 600

export function menuReducer(state: MenuState, event: MenuEvent): MenuState {
  switch (event) {
    case 'toggle':
      return state === 'closed' ? 'opening' : 'closed'
    case 'opened':
      return state === 'opening' ? 'open' : state
    case 'close':
      return 'closed'
  }
}
