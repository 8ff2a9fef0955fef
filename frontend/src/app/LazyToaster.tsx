import { useEffect, useState, type ComponentType } from 'react'
import { useToast } from '@/components/ui/use-toast'

type ToasterModule = typeof import('@/components/ui/toaster')
let loading: Promise<ToasterModule> | null = null

/** The toaster's code, loaded once; a load that failed (offline, the server down) is tried again
 * with the next toast instead of breaking the page. */
function loadToaster(): Promise<ToasterModule> {
  loading ??= import('@/components/ui/toaster').catch((e: unknown) => {
    loading = null
    throw e
  })
  return loading
}

/**
 * The toaster and its Radix code load with the first toast, not with the page: most visits never
 * see one. The toast store is tiny and always there, so a toast raised before the toaster has
 * loaded shows as soon as it has. Nothing here can throw into the page: without its code, a
 * toast simply waits for the next chance to load it.
 */
export function LazyToaster() {
  const { toasts } = useToast()
  const [Toaster, setToaster] = useState<ComponentType | null>(null)
  useEffect(() => {
    if (toasts.length === 0 || Toaster) return
    let live = true
    loadToaster()
      .then((m) => live && setToaster(() => m.Toaster))
      .catch(() => {})
    return () => {
      live = false
    }
  }, [toasts, Toaster])
  return Toaster ? <Toaster /> : null
}
