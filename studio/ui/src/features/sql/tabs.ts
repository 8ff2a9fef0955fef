/** The SQL editor's tabs: each a name and its text, kept in the browser between visits. */
export interface QueryTab {
  id: number
  name: string
  sql: string
}

const KEY = 'studio.sql.tabs'
export const MAX_TABS = 20

export function loadTabs(): QueryTab[] {
  try {
    const t = JSON.parse(localStorage.getItem(KEY) ?? '[]')
    const ok = Array.isArray(t)
      ? t.filter(
          (x): x is QueryTab =>
            typeof x?.id === 'number' && typeof x?.name === 'string' && typeof x?.sql === 'string',
        )
      : []
    return ok.length ? ok.slice(0, MAX_TABS) : [{ id: 1, name: 'Query 1', sql: 'select now();' }]
  } catch {
    return [{ id: 1, name: 'Query 1', sql: 'select now();' }]
  }
}

export function storeTabs(tabs: QueryTab[]) {
  localStorage.setItem(KEY, JSON.stringify(tabs))
}

/** A new tab after the others: the next id and the first free "Query n" name. */
export function newTab(tabs: QueryTab[], name?: string, sql = ''): QueryTab {
  const id = Math.max(0, ...tabs.map((t) => t.id)) + 1
  let n = tabs.length + 1
  while (!name && tabs.some((t) => t.name === `Query ${n}`)) n++
  return { id, name: name ?? `Query ${n}`, sql }
}

/** The tabs without `id`, and which one is active then (its right neighbour, else its left). */
export function closeTab(
  tabs: QueryTab[],
  id: number,
  active: number,
): { tabs: QueryTab[]; active: number } {
  const i = tabs.findIndex((t) => t.id === id)
  if (i < 0 || tabs.length === 1) return { tabs, active }
  const rest = tabs.filter((t) => t.id !== id)
  if (id !== active) return { tabs: rest, active }
  return { tabs: rest, active: (rest[i] ?? rest[i - 1]).id }
}
