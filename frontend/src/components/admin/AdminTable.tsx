import type * as React from 'react'

/** An admin list: its loading and empty states, then a table with these column headings. */
export function AdminTable<T>({
  rows,
  loadingText,
  emptyText,
  headings,
  children,
}: {
  rows: T[] | null
  loadingText: string
  emptyText: string
  headings: string[]
  children: (rows: T[]) => React.ReactNode
}) {
  if (rows === null) return <p role="status" className="text-muted-foreground">{loadingText}</p>
  if (rows.length === 0) return <p className="rounded-lg border bg-card p-8 text-center text-muted-foreground">{emptyText}</p>
  return (
    <div className="overflow-x-auto rounded-lg border bg-card">
      <table className="w-full text-sm">
        <thead className="border-b bg-cream-200/60 text-left">
          <tr>
            {headings.map((h, i) => (
              <th key={h} scope="col" className={i === headings.length - 1 ? 'p-3 text-right' : 'p-3'}>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>{children(rows)}</tbody>
      </table>
    </div>
  )
}
