import { cn } from '@/lib/cn'

/** A cell's value as text: null shown as NULL, objects as JSON. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return 'NULL'
  if (typeof v === 'object') return JSON.stringify(v)
  return String(v)
}

/** A read-only table of objects (the Database pages, result sets). */
export function ValueTable({
  rows,
  columns,
  caption,
  empty = 'Nothing here.',
}: {
  rows: Record<string, unknown>[]
  columns?: string[]
  caption: string
  empty?: string
}) {
  const cols = columns ?? Array.from(new Set(rows.flatMap((r) => Object.keys(r))))
  if (rows.length === 0) return <p className="p-4 text-muted-foreground">{empty}</p>
  return (
    <div className="overflow-auto rounded-md border border-border bg-panel">
      <table className="w-full border-collapse text-left text-xs">
        <caption className="sr-only">{caption}</caption>
        <thead className="sticky top-0 bg-muted">
          <tr>
            {cols.map((c) => (
              <th
                key={c}
                scope="col"
                className="whitespace-nowrap border-b border-border px-2 py-1.5 font-semibold"
              >
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i} className="odd:bg-panel even:bg-muted">
              {cols.map((c) => (
                <td
                  key={c}
                  className={cn(
                    'max-w-md truncate border-b border-border px-2 py-1 font-mono',
                    r[c] === null && 'text-muted-foreground',
                  )}
                  title={cellText(r[c])}
                >
                  {cellText(r[c])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** A table's header row: one column heading each; an empty heading is the actions column,
 * named for screen readers. */
export function HeadRow({ headings }: { headings: string[] }) {
  return (
    <tr>
      {headings.map((h) => (
        <th key={h} scope="col" className="border-b border-border px-2 py-1.5 font-semibold">
          {h || <span className="sr-only">Actions</span>}
        </th>
      ))}
    </tr>
  )
}
