import * as React from 'react'
import { cn } from '@/lib/cn'

export const fieldClass =
  'h-9 rounded-md border border-border bg-panel px-2.5 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring disabled:opacity-50'

export const Input = React.forwardRef<
  HTMLInputElement,
  React.InputHTMLAttributes<HTMLInputElement>
>(({ className, ...props }, ref) => (
  <input ref={ref} className={cn(fieldClass, className)} {...props} />
))
Input.displayName = 'Input'

export const Select = React.forwardRef<
  HTMLSelectElement,
  React.SelectHTMLAttributes<HTMLSelectElement>
>(({ className, ...props }, ref) => (
  <select ref={ref} className={cn(fieldClass, 'pr-7', className)} {...props} />
))
Select.displayName = 'Select'

/** A label above its field. */
export function Field({
  label,
  children,
  className,
}: {
  label: string
  children: React.ReactNode
  className?: string
}) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the field's control is the child it wraps
    <label
      className={cn('flex flex-col gap-1 text-xs font-medium text-muted-foreground', className)}
    >
      {label}
      {children}
    </label>
  )
}
