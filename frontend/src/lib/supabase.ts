import { createClient } from '@supabase/supabase-js'
import { apiConfig } from './apiConfig'
import type { Database } from './database.types'

const { url, anonKey } = apiConfig()

/** The one supabase client of the site and the admin panel, typed by the generated schema. */
export const supabase = createClient<Database>(url, anonKey, {
  auth: {
    persistSession: true,
    autoRefreshToken: true,
    storage: typeof window !== 'undefined' ? window.localStorage : undefined,
  },
})
