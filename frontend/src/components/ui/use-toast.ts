/**
 * Toast state in the shadcn style. SPEC.md §8–9: toasts show one at a time, and a dismissed toast
 * is removed from the DOM after 1000000 ms.
 */
import * as React from 'react'

export const TOAST_LIMIT = 1
export const TOAST_REMOVE_DELAY = 1000000

export type ToastVariant = 'default' | 'destructive' | 'success'

export interface ToastData {
  id: string
  title?: React.ReactNode
  description?: React.ReactNode
  variant?: ToastVariant
  open: boolean
}

type Action =
  | { type: 'ADD'; toast: ToastData }
  | { type: 'DISMISS'; id?: string }
  | { type: 'REMOVE'; id?: string }

interface State {
  toasts: ToastData[]
}

let count = 0
const genId = () => {
  count = (count + 1) % Number.MAX_SAFE_INTEGER
  return String(count)
}
const removeTimeouts = new Map<string, ReturnType<typeof setTimeout>>()
const listeners: Array<(s: State) => void> = []
let memory: State = { toasts: [] }

export function reducer(state: State, action: Action): State {
  switch (action.type) {
    case 'ADD':
      return { toasts: [action.toast, ...state.toasts].slice(0, TOAST_LIMIT) }
    case 'DISMISS':
      return {
        toasts: state.toasts.map((t) =>
          action.id === undefined || t.id === action.id ? { ...t, open: false } : t,
        ),
      }
    case 'REMOVE':
      return {
        toasts: action.id === undefined ? [] : state.toasts.filter((t) => t.id !== action.id),
      }
  }
}

function dispatch(action: Action) {
  if (action.type === 'DISMISS') {
    const ids = action.id ? [action.id] : memory.toasts.map((t) => t.id)
    for (const id of ids) {
      if (removeTimeouts.has(id)) continue
      removeTimeouts.set(
        id,
        setTimeout(() => {
          removeTimeouts.delete(id)
          dispatch({ type: 'REMOVE', id })
        }, TOAST_REMOVE_DELAY),
      )
    }
  }
  memory = reducer(memory, action)
  for (const l of listeners) l(memory)
}

export function toast(props: Omit<ToastData, 'id' | 'open'>) {
  const id = genId()
  dispatch({ type: 'ADD', toast: { ...props, id, open: true } })
  return { id, dismiss: () => dispatch({ type: 'DISMISS', id }) }
}

export function dismissToast(id?: string) {
  dispatch({ type: 'DISMISS', id })
}

export function useToast() {
  const [state, setState] = React.useState<State>(memory)
  React.useEffect(() => {
    listeners.push(setState)
    return () => {
      const i = listeners.indexOf(setState)
      if (i > -1) listeners.splice(i, 1)
    }
  }, [])
  return { ...state, toast, dismiss: dismissToast }
}
