/** The shop's staff: its administrators (the app's staff functions) and where requests are mailed. */
import { useQuery } from '@tanstack/react-query'
import { supabase } from '@/lib/supabase'

export function useAdmins() {
  return useQuery({
    queryKey: ['staff'],
    queryFn: async () => {
      const { data, error } = await supabase.rpc('list_admins')
      if (error) throw error
      return data
    },
  })
}

export async function grantAdmin(email: string) {
  return supabase.rpc('grant_admin', { email })
}

export async function revokeAdmin(email: string) {
  return supabase.rpc('revoke_admin', { email })
}

export function useNotifyEmail() {
  return useQuery({
    queryKey: ['settings'],
    queryFn: async () => {
      const { data, error } = await supabase.from('shop_settings').select('notify_email').single()
      if (error) throw error
      return data.notify_email ?? ''
    },
  })
}

export async function saveNotifyEmail(email: string) {
  return supabase
    .from('shop_settings')
    .update({ notify_email: email.trim() || null })
    .eq('id', true)
}
