import { lazy, type ComponentType } from 'react'

/**
 * A page's code, loaded on demand and tried again when the server cannot be reached (offline,
 * the server down or restarting): every 1, 2, 4 then 8 seconds until it loads, so a page opened
 * during an outage appears by itself when the server is back. Other failures are thrown at once.
 */
export function loadWithRetry<T>(load: () => Promise<T>, attempt = 0): Promise<T> {
  return load().catch((e: unknown) => {
    const unreachable =
      e instanceof TypeError ||
      /dynamically imported module|Importing a module script failed|error loading dynamically/i.test(
        String(e),
      )
    if (!unreachable) throw e
    return new Promise<T>((resolve) =>
      setTimeout(resolve, Math.min(1000 * 2 ** attempt, 8000)),
    ).then(() => loadWithRetry(load, attempt + 1))
  })
}

/** `React.lazy` with {@link loadWithRetry} (typed as React types `lazy`). */
// biome-ignore lint/suspicious/noExplicitAny: React.lazy's own bound for the component's props
export function lazyRetry<T extends ComponentType<any>>(load: () => Promise<{ default: T }>) {
  return lazy(() => loadWithRetry(load))
}
