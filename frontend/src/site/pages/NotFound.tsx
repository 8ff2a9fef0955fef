import * as React from 'react'
import { Link, useLocation } from 'react-router-dom'
import { Button } from '@/components/ui/button'
import { usePageMeta } from '@/lib/usePageMeta'

export default function NotFound() {
  const location = useLocation()
  // A page that found nothing to show redirects here and says which path that was.
  const missing = (location.state as { from?: string } | null)?.from ?? location.pathname
  usePageMeta('Page not found', 'This page does not exist.')
  React.useEffect(() => {
    console.warn('404: a page that does not exist was requested:', missing)
  }, [missing])
  return (
    <section className="mx-auto flex min-h-[50vh] max-w-xl flex-col items-center justify-center px-4 py-20 text-center">
      <p className="font-display text-8xl font-bold text-rose-500" aria-hidden="true">
        404
      </p>
      <h1 className="mt-2 font-display text-4xl font-bold">Oops! Page not found</h1>
      <p className="mt-3 text-muted-foreground">
        The page you were looking for has wilted away, or never bloomed.
      </p>
      <Button asChild className="mt-8">
        <Link to="/">Return to Home</Link>
      </Button>
    </section>
  )
}
