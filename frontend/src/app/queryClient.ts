import { QueryClient } from '@tanstack/react-query'

/**
 * The one query cache of the site and the admin panel. Lists stay fresh through Realtime
 * (lib/live.ts) and explicit invalidation after writes, so focus and reconnect do not refetch,
 * and a failed query is reported at once (the pages say what went wrong) rather than retried.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { staleTime: 30_000, retry: false, refetchOnWindowFocus: false },
  },
})
