import * as React from 'react'
import { Outlet, useLocation } from 'react-router-dom'
import { Footer } from './Footer'
import { Header } from './Header'

function ScrollToTop() {
  const { pathname } = useLocation()
  // biome-ignore lint/correctness/useExhaustiveDependencies: scrolls to the top whenever the page changes
  React.useEffect(() => {
    window.scrollTo(0, 0)
  }, [pathname])
  return null
}

export function SiteLayout() {
  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded-md focus:bg-card focus:px-4 focus:py-2"
      >
        Skip to content
      </a>
      <ScrollToTop />
      <Header />
      <main id="main" className="flex-1">
        {/* While a page loads the footer stays below the fold, so it does not jump when the page arrives. */}
        <React.Suspense
          fallback={
            <p className="min-h-[100svh] py-24 text-center text-muted-foreground" role="status">
              Loading…
            </p>
          }
        >
          <Outlet />
        </React.Suspense>
      </main>
      <Footer />
    </div>
  )
}
