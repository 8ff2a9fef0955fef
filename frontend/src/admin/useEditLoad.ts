import * as React from 'react'
import { useNavigate } from 'react-router-dom'
import { toast } from '@/components/ui/use-toast'
import { describeError, type ServiceError } from '@/lib/errors'

/**
 * An edit form's loading: fills the form once when the row arrives (later refetches never
 * overwrite what is being typed), and on a failed load says so and goes back to the list.
 * Resolves to whether the form is ready; a new row's form is ready at once.
 */
export function useEditLoad<T>(
  editing: string | null,
  loaded: { data?: T; error: ServiceError | null },
  fill: (row: T) => void,
  failure: { title: string; back: string },
): boolean {
  const navigate = useNavigate()
  const [ready, setReady] = React.useState(!editing)
  const fillOnce = React.useRef(fill)
  React.useEffect(() => {
    fillOnce.current = fill
  })
  React.useEffect(() => {
    if (!loaded.error) return
    toast({
      variant: 'destructive',
      title: failure.title,
      description: describeError(loaded.error),
    })
    navigate(failure.back)
  }, [loaded.error, navigate, failure.title, failure.back])
  React.useEffect(() => {
    if (ready || loaded.data === undefined) return
    fillOnce.current(loaded.data)
    setReady(true)
  }, [loaded.data, ready])
  return ready
}
