import { Link } from 'react-router-dom'
import { site } from '@/config/site'

/** Shown instead of a blank page when a page fails (app/RouteErrorBoundary). */
export default function ErrorScreen() {
  return (
    <main className="flex min-h-screen items-center justify-center bg-cream-100 px-4">
      <div className="max-w-lg text-center">
        <h1 className="font-display text-4xl font-bold">Something went wrong</h1>
        <p className="mt-3 text-ink-700">
          Sorry, this page could not be shown. Please try again, or call us on{' '}
          <a href={site.phoneHref} className="font-semibold text-rose-700">
            {site.phone}
          </a>
          .
        </p>
        <div className="mt-8 flex justify-center gap-3">
          <button
            type="button"
            onClick={() => window.location.reload()}
            className="rounded-md border px-4 py-2 font-semibold hover:bg-rose-100"
          >
            Try again
          </button>
          <Link
            to="/"
            className="rounded-md bg-primary px-4 py-2 font-semibold text-white hover:bg-rose-700"
            reloadDocument
          >
            Return to Home
          </Link>
        </div>
      </div>
    </main>
  )
}
