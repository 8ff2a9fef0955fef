import * as React from 'react'
import { toast } from '@/components/ui/use-toast'
import { describeError, type ServiceError } from '@/lib/errors'

/** Shows a destructive toast with `title` when a query fails (once per failure). */
export function useFailureToast(error: ServiceError | null | undefined, title: string) {
  React.useEffect(() => {
    if (error) toast({ variant: 'destructive', title, description: describeError(error) })
  }, [error, title])
}
