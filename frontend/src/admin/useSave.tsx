import * as React from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { RotateCw, TriangleAlert } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { toast } from '@/components/ui/use-toast'
import { describeError, isUnreachable, type ServiceError } from '@/lib/errors'

/**
 * An admin form's save, surviving outages as the visitor's request form does: when the server
 * cannot be reached the form keeps what was typed, says the save did not happen and offers Try
 * again (`<SaveFailure>`), and the open page's queries are asked again, so the outage banner shows
 * until the server answers. A refusal (a rule, a duplicate) is a toast titled `title`, as before.
 * Resolves to whether the save happened.
 */
/** How long a save may go unanswered before the form says it did not happen. */
export const SAVE_TIMEOUT_MS = 15_000

export function useSave(title = 'Error') {
  const client = useQueryClient()
  const [failure, setFailure] = React.useState<string | null>(null)
  const run = React.useCallback(
    async (save: () => Promise<{ error: ServiceError | null }>): Promise<boolean> => {
      setFailure(null)
      // A server that takes the connection but never answers counts as unreachable after a
      // while: every admin save may be sent again (creates carry their id), so a late answer
      // does no harm.
      let timer: ReturnType<typeof setTimeout> | undefined
      const error = await Promise.race([
        save().then(
          (r) => r.error,
          (e: unknown): ServiceError => ({ message: e instanceof Error ? e.message : String(e) }),
        ),
        new Promise<ServiceError>((resolve) => {
          timer = setTimeout(() => resolve({ message: 'The request timed out' }), SAVE_TIMEOUT_MS)
        }),
      ]).finally(() => clearTimeout(timer))
      if (!error) return true
      if (isUnreachable(error)) {
        setFailure(describeError(error))
        void client.refetchQueries({ type: 'active' })
      } else {
        toast({ variant: 'destructive', title, description: describeError(error) })
      }
      return false
    },
    [client, title],
  )
  return { run, failure, clear: () => setFailure(null) }
}

/** A save that did not happen because the server could not be reached: focused when it shows. */
export function SaveFailure({
  message,
  onRetry,
  busy,
  what = 'Your changes were',
}: {
  message: string | null
  onRetry: () => void
  busy: boolean
  what?: string
}) {
  const ref = React.useRef<HTMLDivElement>(null)
  React.useEffect(() => {
    if (message) ref.current?.focus()
  }, [message])
  if (!message) return null
  return (
    <div
      ref={ref}
      tabIndex={-1}
      role="alert"
      className="space-y-3 rounded-md border-2 border-destructive bg-rose-50 p-4 focus:outline-none focus-visible:ring-2 focus-visible:ring-ring"
    >
      <p className="flex items-center gap-2 font-semibold text-destructive">
        <TriangleAlert className="size-5" aria-hidden="true" /> {what} not saved
      </p>
      <p className="text-sm">{message} Everything you typed is still here.</p>
      <Button type="button" onClick={onRetry} disabled={busy}>
        <RotateCw aria-hidden="true" /> {busy ? 'Trying again…' : 'Try again'}
      </Button>
    </div>
  )
}
