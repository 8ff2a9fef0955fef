/** The shop's own settings (public.shop_settings) and the days it is closed (public.shop_closures). */
import { useQuery } from '@tanstack/react-query'
import type { Json } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'
import type { WeekDay } from '@/features/hours/week'
import type { ClosureForm, SettingsForm } from './schema'

export function useSettings() {
  return useQuery({
    queryKey: ['settings', 'shop'],
    queryFn: async (): Promise<SettingsForm> => {
      const { data, error } = await supabase
        .from('shop_settings')
        .select('shop_name, shop_email, shop_phone, site_url, same_day_cutoff, size_prices')
        .single()
      if (error) throw error
      const prices = data.size_prices as Record<'good' | 'better' | 'best', number>
      return {
        shop_name: data.shop_name,
        shop_email: data.shop_email ?? '',
        shop_phone: data.shop_phone,
        site_url: data.site_url ?? '',
        same_day_cutoff: data.same_day_cutoff.slice(0, 5),
        good: prices.good,
        better: prices.better,
        best: prices.best,
      }
    },
  })
}

export async function saveSettings(s: SettingsForm) {
  return supabase
    .from('shop_settings')
    .update({
      shop_name: s.shop_name.trim(),
      shop_email: s.shop_email.trim() || null,
      shop_phone: s.shop_phone.trim(),
      site_url: s.site_url.trim() || null,
      same_day_cutoff: s.same_day_cutoff,
      size_prices: { good: s.good, better: s.better, best: s.best },
    })
    .eq('id', true)
}

export function useClosures() {
  return useQuery({
    queryKey: ['settings', 'closures'],
    queryFn: async () => {
      const today = new Date().toISOString().slice(0, 10)
      const { data, error } = await supabase
        .from('shop_closures')
        .select('day, note')
        .gte('day', today)
        .order('day')
      if (error) throw error
      return data
    },
  })
}

export async function addClosure(c: ClosureForm) {
  return supabase.from('shop_closures').upsert({ day: c.day, note: c.note.trim() })
}

export async function removeClosure(day: string) {
  return supabase.from('shop_closures').delete().eq('day', day)
}

/** Saves the whole week at once (public.save_shop_hours: seven days or none). */
export async function saveHours(week: WeekDay[]) {
  return supabase.rpc('save_shop_hours', { week: week as unknown as Json })
}
