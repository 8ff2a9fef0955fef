import { lazy, Suspense, useEffect, useState } from 'react'
import { useToast } from '@/components/ui/use-toast'

const Toaster = lazy(() => import('@/components/ui/toaster').then((m) => ({ default: m.Toaster })))

/**
 * The toaster and its Radix code load with the first toast, not with the page: most visits never
 * see one. The toast store is tiny and always there, so a toast raised before the toaster has
 * loaded shows as soon as it has.
 */
export function LazyToaster() {
  const { toasts } = useToast()
  const [needed, setNeeded] = useState(false)
  useEffect(() => {
    if (toasts.length > 0) setNeeded(true)
  }, [toasts.length])
  return needed ? (
    <Suspense fallback={null}>
      <Toaster />
    </Suspense>
  ) : null
}
