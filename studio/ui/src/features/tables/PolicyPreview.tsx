import { useState } from 'react'
import { useMutation } from '@tanstack/react-query'
import { api } from '@/lib/api'
import { UserPicker, type Chosen } from '@/features/auth/UserPicker'
import { Button } from '@/components/ui/button'
import { Field, Select } from '@/components/ui/input'
import { ErrorNote } from '@/components/ErrorNote'
import { qualified } from './ddl'
import { ranAs } from './preview'

/** Rows shown at most in a preview. */
const PREVIEW_ROWS = 20

interface Answer {
  results: { columns: string[]; rows: (string | null)[][]; row_count: number }[]
  role: string
  claims: Record<string, unknown> | null
}

/**
 * "Test as": the rows a role, or a user, sees through the policies, counted and shown. It runs
 * as the SQL editor runs, always rolled back, in the role with the claims of the token Studio's
 * server signs for the user (`POST /api/users/{id}/token`, as Edge Functions are called).
 */
export function PolicyPreview({ schema, table }: { schema: string; table: string }) {
  const [role, setRole] = useState('authenticated')
  const [user, setUser] = useState<Chosen | null>(null)
  const preview = useMutation({
    mutationFn: () =>
      api<Answer>('/sql', {
        method: 'POST',
        json: {
          query: `select count(*) from ${qualified(schema, table)}; select * from ${qualified(schema, table)} limit ${PREVIEW_ROWS}`,
          role,
          user_id: role === 'authenticated' && user ? user.id : null,
          rollback: true,
        },
      }),
  })
  const [count, rows] = preview.data?.results ?? []
  return (
    <section aria-label="Test as" className="rounded-md border border-border bg-panel p-3">
      <h3 className="font-medium">Test as a role or user</h3>
      <div className="mt-2 flex flex-wrap items-end gap-2">
        <Field label="Role">
          <Select aria-label="Preview role" value={role} onChange={(e) => setRole(e.target.value)}>
            <option>anon</option>
            <option>authenticated</option>
          </Select>
        </Field>
        {role === 'authenticated' ? (
          <UserPicker
            chosen={user}
            onChoose={setUser}
            label="Preview user"
            none="(no user: auth.uid() is null)"
          />
        ) : null}
        <Button size="sm" onClick={() => preview.mutate()} disabled={preview.isPending}>
          Preview rows
        </Button>
      </div>
      <ErrorNote error={preview.error} />
      {count && preview.data ? (
        <p className="mt-2" aria-live="polite">
          {count.rows[0]?.[0]} {count.rows[0]?.[0] === '1' ? 'row' : 'rows'} visible
          {rows && rows.rows.length < Number(count.rows[0]?.[0])
            ? ` (first ${rows.rows.length} below)`
            : ''}{' '}
          <span className="text-xs text-muted-foreground">
            as {ranAs(preview.data.role, preview.data.claims)}
          </span>
        </p>
      ) : null}
      {rows && rows.rows.length > 0 ? (
        <ul className="mt-1 space-y-0.5 font-mono text-xs">
          {rows.rows.map((r, i) => (
            <li key={i} className="truncate">
              {rows.columns.map((c, j) => `${c}=${r[j] ?? 'NULL'}`).join(' · ')}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  )
}
