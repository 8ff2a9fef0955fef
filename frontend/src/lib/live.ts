import * as React from 'react'
import { useQueryClient, type QueryKey } from '@tanstack/react-query'
import { supabase } from './supabase'

export type LiveTable = 'products' | 'categories' | 'product_categories' | 'bouquet_requests'

/** Which cached queries a change to each table makes stale. */
const staleAfter: Record<LiveTable, QueryKey[]> = {
  products: [['products'], ['dashboard'], ['catalogue']],
  categories: [['categories'], ['category-names'], ['products'], ['dashboard'], ['catalogue']],
  product_categories: [['products'], ['catalogue']],
  bouquet_requests: [['requests'], ['dashboard']],
}

/**
 * Refetches the queries a change makes stale when a row of one of `tables` changes, in this
 * session or another (Realtime postgres_changes; RLS decides who hears of which rows), at most
 * every 300 ms per table, and everything when the channel joins again after an outage. Without
 * Realtime the pages simply stay as loaded.
 */
export function useLiveInvalidation(tables: LiveTable[]) {
  const client = useQueryClient()
  const key = tables.join(',')
  React.useEffect(() => {
    const timers = new Map<string, ReturnType<typeof setTimeout>>()
    const channel = supabase.channel(`live-${key}-${Math.random().toString(36).slice(2)}`)
    for (const table of key.split(',') as LiveTable[]) {
      channel.on('postgres_changes', { event: '*', schema: 'public', table }, () => {
        clearTimeout(timers.get(table))
        timers.set(
          table,
          setTimeout(() => {
            for (const queryKey of staleAfter[table]) void client.invalidateQueries({ queryKey })
          }, 300),
        )
      })
    }
    // A channel that joins again (after an outage) may have missed changes: refetch them all.
    let joined = false
    channel.subscribe((status) => {
      if (status !== 'SUBSCRIBED') return
      if (joined) {
        for (const table of key.split(',') as LiveTable[]) {
          for (const queryKey of staleAfter[table]) void client.invalidateQueries({ queryKey })
        }
      }
      joined = true
    })
    return () => {
      for (const t of timers.values()) clearTimeout(t)
      void supabase.removeChannel(channel)
    }
  }, [client, key])
}
