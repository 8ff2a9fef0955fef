import { QueryClient } from '@tanstack/react-query'
import { isUnreachable } from '@/lib/errors'

/**
 * The one query cache of the site and the admin panel. Lists stay fresh through Realtime
 * (lib/live.ts) and explicit invalidation after writes, so focus does not refetch. A query the
 * server refused is reported at once (the pages say what went wrong); one that could not reach
 * the server is tried again, every few seconds, until it can, keeping what it had loaded (the
 * admin shows a banner meanwhile), and everything is refetched when the connection is back.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      refetchOnWindowFocus: false,
      retry: (_failures, error) => isUnreachable(error),
      retryDelay: (failures) => Math.min(1000 * 2 ** failures, 8000),
    },
  },
})
