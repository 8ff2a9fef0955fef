/**
 * Where the API is and the key a visitor uses, without loading supabase-js: the gateway that
 * serves the site says so in `/__supagate/config.js`; `vite dev` reads VITE_SUPABASE_URL and
 * VITE_SUPABASE_ANON_KEY, else a local gateway with the Supabase CLI's anon key.
 */
declare global {
  interface Window {
    /** Injected by the gateway that serves the site: its public URL (null: this origin) and anon key. */
    __SUPAGATE__?: { url: string | null; anonKey: string }
  }
}

/** The Supabase CLI's local anon key, for `vite dev` against a local gateway. */
const LOCAL_ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0'

export function apiConfig(): { url: string; anonKey: string } {
  const runtime = typeof window !== 'undefined' ? window.__SUPAGATE__ : undefined
  const url =
    import.meta.env.VITE_SUPABASE_URL ||
    runtime?.url ||
    (runtime && typeof window !== 'undefined' ? window.location.origin : 'http://127.0.0.1:54321')
  const anonKey = import.meta.env.VITE_SUPABASE_ANON_KEY || runtime?.anonKey || LOCAL_ANON_KEY
  return { url, anonKey }
}
