import type * as React from 'react'
import { cn } from '@/lib/utils'
import { useIsMobile } from '@/lib/useIsMobile'

export interface Column<T> {
  heading: string
  cell: (row: T) => React.ReactNode
  /** Shown as the card's title on a phone, without its heading. */
  primary?: boolean
  /** Left out of the phone cards. */
  desktopOnly?: boolean
}

/**
 * An admin list: its loading and empty states, then a table with these columns and a row's
 * actions last. On a phone each row is a card with its actions in reach (no sideways scrolling).
 */
export function AdminTable<T>({
  rows,
  columns,
  rowKey,
  actions,
  loadingText,
  emptyText,
  testId,
  rowClassName,
}: {
  rows: T[] | undefined
  columns: Column<T>[]
  rowKey: (row: T) => string
  actions?: (row: T) => React.ReactNode
  loadingText: string
  emptyText: string
  testId: string
  rowClassName?: (row: T) => string | undefined
}) {
  const mobile = useIsMobile()
  if (rows === undefined)
    return (
      <p role="status" className="text-muted-foreground">
        {loadingText}
      </p>
    )
  if (rows.length === 0)
    return (
      <p className="rounded-lg border bg-card p-8 text-center text-muted-foreground">{emptyText}</p>
    )
  if (mobile) {
    return (
      <ul className="space-y-3">
        {rows.map((row) => (
          <li
            key={rowKey(row)}
            className={cn('rounded-lg border bg-card p-4', rowClassName?.(row))}
            data-testid={testId}
          >
            {columns
              .filter((c) => c.primary)
              .map((c) => (
                <div key={c.heading} className="mb-2">
                  {c.cell(row)}
                </div>
              ))}
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
              {columns
                .filter((c) => !c.primary && !c.desktopOnly)
                .map((c) => (
                  <div key={c.heading} className="contents">
                    <dt className="text-muted-foreground">{c.heading}</dt>
                    <dd className="min-w-0">{c.cell(row)}</dd>
                  </div>
                ))}
            </dl>
            {actions && <div className="mt-3 border-t pt-3">{actions(row)}</div>}
          </li>
        ))}
      </ul>
    )
  }
  const headings = [...columns.map((c) => c.heading), ...(actions ? ['Actions'] : [])]
  return (
    <div className="overflow-x-auto rounded-lg border bg-card">
      <table className="w-full text-sm">
        <thead className="border-b bg-cream-200/60 text-left">
          <tr>
            {headings.map((h, i) => (
              <th
                key={h}
                scope="col"
                className={actions && i === headings.length - 1 ? 'p-3 text-right' : 'p-3'}
              >
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr
              key={rowKey(row)}
              className={cn('border-b last:border-0', rowClassName?.(row))}
              data-testid={testId}
            >
              {columns.map((c) => (
                <td key={c.heading} className="p-3">
                  {c.cell(row)}
                </td>
              ))}
              {actions && <td className="p-3">{actions(row)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
