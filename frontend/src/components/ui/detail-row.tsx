import type * as React from 'react'
import { cn } from '@/lib/utils'

/** One term and its value of a `<dl>`, side by side from the sm width. */
export function DetailRow({
  label,
  children,
  className,
}: {
  label: string
  children: React.ReactNode
  className?: string
}) {
  return (
    <div className={cn('grid gap-1 sm:grid-cols-[12rem_1fr]', className)}>
      <dt className="text-sm font-semibold text-muted-foreground">{label}</dt>
      <dd className="min-w-0 break-words">{children}</dd>
    </div>
  )
}
