import * as React from 'react'
import { supabase } from './supabase'

export type LiveTable = 'products' | 'categories' | 'product_categories'

let channels = 0

/**
 * Calls `onChange` when a row of one of `tables` changes, in this session or another (Realtime
 * postgres_changes), at most every 300 ms. Without Realtime the page simply stays as loaded.
 */
export function useLiveChanges(tables: LiveTable[], onChange: () => void) {
  const latest = React.useRef(onChange)
  React.useEffect(() => {
    latest.current = onChange
  })
  const key = tables.join(',')
  React.useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const changed = () => {
      clearTimeout(timer)
      timer = setTimeout(() => latest.current(), 300)
    }
    const channel = supabase.channel(`admin-live-${++channels}`)
    for (const table of key.split(',')) {
      channel.on('postgres_changes', { event: '*', schema: 'public', table }, changed)
    }
    channel.subscribe()
    return () => {
      clearTimeout(timer)
      void supabase.removeChannel(channel)
    }
  }, [key])
}
