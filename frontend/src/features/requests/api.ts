/** The shop's inbox of bouquet requests: newest first, unread until an admin opens one. */
import { useQuery } from '@tanstack/react-query'
import type { Enums, Tables } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

export type RequestRow = Tables<'bouquet_requests'>
export type RequestStatus = Enums<'request_status'>

export const requestStatuses: { value: RequestStatus; label: string }[] = [
  { value: 'new', label: 'New' },
  { value: 'contacted', label: 'Contacted' },
  { value: 'done', label: 'Done' },
]
export const statusLabel = (s: RequestStatus) =>
  requestStatuses.find((x) => x.value === s)?.label ?? s

/** How many requests the inbox lists (the newest). */
export const INBOX_SIZE = 500

export function useRequests() {
  return useQuery({
    queryKey: ['requests', 'list'],
    queryFn: async () => {
      const { data, error } = await supabase
        .from('bouquet_requests')
        .select('*')
        .order('created_at', { ascending: false })
        .limit(INBOX_SIZE)
      if (error) throw error
      return data
    },
  })
}

export function useRequest(id: string) {
  return useQuery({
    queryKey: ['requests', 'one', id],
    queryFn: async () => {
      const { data, error } = await supabase
        .from('bouquet_requests')
        .select('*')
        .eq('id', id)
        .maybeSingle()
      if (error) throw error
      return data
    },
  })
}

/** Requests no admin has opened yet (the sidebar's badge). */
export function useUnreadCount() {
  return useQuery({
    queryKey: ['requests', 'unread'],
    queryFn: async () => {
      const { count, error } = await supabase
        .from('bouquet_requests')
        .select('id', { count: 'exact', head: true })
        .is('read_at', null)
      if (error) throw error
      return count ?? 0
    },
  })
}

export async function markRead(id: string) {
  return supabase
    .from('bouquet_requests')
    .update({ read_at: new Date().toISOString() })
    .eq('id', id)
    .is('read_at', null)
}

export async function setStatus(id: string, status: RequestStatus) {
  return supabase.from('bouquet_requests').update({ status }).eq('id', id)
}

export async function saveNotes(id: string, notes: string) {
  return supabase
    .from('bouquet_requests')
    .update({ notes: notes.trim() || null })
    .eq('id', id)
}

export async function deleteRequest(id: string) {
  return supabase.from('bouquet_requests').delete().eq('id', id)
}

/** "2 hours ago", "yesterday", or the date: when a request came in. */
export function receivedAgo(iso: string, now = Date.now()): string {
  const minutes = Math.round((now - new Date(iso).getTime()) / 60000)
  if (minutes < 1) return 'just now'
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.round(minutes / 60)
  if (hours < 24) return `${hours} hour${hours === 1 ? '' : 's'} ago`
  const days = Math.round(hours / 24)
  if (days === 1) return 'yesterday'
  if (days < 7) return `${days} days ago`
  return new Date(iso).toLocaleDateString('en-US', {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
  })
}
