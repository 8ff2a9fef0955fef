import { ApiError, errorText } from '@/lib/api'

/** An error as the user can act on it: the message, PostgreSQL's detail and hint, and where. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null
  const e = error instanceof ApiError ? error : null
  return (
    <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-red-900">
      <p className="font-medium">
        {errorText(error)}
        {e?.line ? (
          <span className="ml-2 font-normal">
            (line {e.line}, column {e.column})
          </span>
        ) : null}
      </p>
      {e?.detail ? <p className="mt-1">{e.detail}</p> : null}
      {e?.hint ? <p className="mt-1">Hint: {e.hint}</p> : null}
      {e?.code && e.code !== 'invalid' ? <p className="mt-1 font-mono text-xs">{e.code}</p> : null}
    </div>
  )
}
