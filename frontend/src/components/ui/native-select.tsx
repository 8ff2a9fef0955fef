import * as React from 'react'
import { cn } from '@/lib/utils'

/** A styled native select: accessible and reliable on phones. */
export const NativeSelect = React.forwardRef<
  HTMLSelectElement,
  React.SelectHTMLAttributes<HTMLSelectElement>
>(({ className, ...props }, ref) => (
  <select
    ref={ref}
    className={cn(
      'flex h-10 w-full cursor-pointer rounded-md border border-input bg-cream-50 px-3 py-2 text-base focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring disabled:cursor-not-allowed disabled:opacity-50 aria-[invalid=true]:border-destructive md:text-sm',
      className,
    )}
    {...props}
  />
))
NativeSelect.displayName = 'NativeSelect'
