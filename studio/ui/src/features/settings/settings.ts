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
