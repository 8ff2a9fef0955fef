/** The settings page's data (`/api/settings`) and the connection strings made from it. */
export interface Settings {
  urls: {
    api: string
    rest: string
    graphql: string
    storage: string
    realtime: string
    functions: string | null
  }
  keys: { anon: string; service_role: string; publishable: string | null; secret: string | null }
  jwt: { secret: string; algorithm: string; expiry: number; demo_secret: boolean }
  database: {
    port: string
    database: string
    user: string
    listen_addresses: string
    version: string
  }
}

/** The host clients reach the server on: a listen address, loopback when it listens everywhere. */
export function host(listen: string): string {
  const first =
    listen
      .split(',')
      .map((a) => a.trim())
      .find((a) => a !== '') ?? ''
  if (first === '' || first === '*' || first === '0.0.0.0' || first === '::') return '127.0.0.1'
  return first.includes(':') ? `[${first}]` : first
}

/** The database's connection strings: URI, libpq keywords, psql and a JDBC URL (no password). */
export function connectionStrings(d: Settings['database']): [string, string][] {
  const h = host(d.listen_addresses)
  const user = encodeURIComponent(d.user)
  const db = encodeURIComponent(d.database)
  const bare = h.replace(/^\[|\]$/g, '')
  return [
    ['URI', `postgresql://${user}@${h}:${d.port}/${db}`],
    ['libpq keywords', `host=${bare} port=${d.port} dbname=${d.database} user=${d.user}`],
    ['psql', `psql -h ${bare} -p ${d.port} -U ${d.user} ${d.database}`],
    ['JDBC', `jdbc:postgresql://${h}:${d.port}/${db}?user=${user}`],
  ]
}

/** A key config.toml sets (`/api/settings/config`): its line, and its value as it may be shown. */
export interface ConfigKey {
  key: string
  /** The table it is in: `auth.external.github` ('' at the top). */
  section: string
  line: number
  /** The value as TOML writes it; null for a secret or an `env()` value. */
  value: string | null
  secret: { empty: boolean } | null
  env: { name: string; set: boolean } | null
  /** The `SUPABASE_<KEY>` variable that replaces the file's value, when it is set. */
  overridden_by: string | null
  /** False for a key supagate does not implement (it is read, and changes nothing). */
  applied: boolean
}

export interface ConfigListing {
  /** The file, relative to the project folder; null when the project has none. */
  file: string | null
  keys: ConfigKey[]
  providers: { name: string; enabled: boolean }[]
}

/** A key's value as the page shows it: secrets masked, `env()` values named with set/unset. */
export function shownValue(k: ConfigKey): string {
  if (k.env) return `env(${k.env.name}) · ${k.env.set ? 'set' : 'unset'}`
  if (k.secret) return k.secret.empty ? '(empty)' : '•••••••• (secret)'
  return k.value ?? ''
}

/** The auth keys and the others, each grouped by its table in the file's order of first use. */
export function groupKeys(keys: ConfigKey[]): {
  auth: [string, ConfigKey[]][]
  other: [string, ConfigKey[]][]
} {
  const groups = new Map<string, ConfigKey[]>()
  for (const k of keys) {
    const list = groups.get(k.section)
    if (list) list.push(k)
    else groups.set(k.section, [k])
  }
  const all = [...groups.entries()]
  const isAuth = (s: string) => s === 'auth' || s.startsWith('auth.')
  return {
    auth: all.filter(([s]) => isAuth(s)),
    other: all.filter(([s]) => !isAuth(s)),
  }
}
