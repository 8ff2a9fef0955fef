import { useState } from 'react'
import { useMutation, useQuery } from '@tanstack/react-query'
import { api } from '@/lib/api'
import { useSession } from '@/lib/session'
import { listUsers } from '@/features/auth/users'
import { Button } from '@/components/ui/button'
import { Field, Select } from '@/components/ui/input'
import { ErrorNote } from '@/components/ErrorNote'
import { qualified } from './ddl'

/** Rows shown at most in a preview. */
const PREVIEW_ROWS = 20

interface Answer {
  results: { columns: string[]; rows: (string | null)[][]; row_count: number }[]
}

/**
 * "Test as": the rows a role (and a user's claims, as the API sets them) sees through the
 * policies, counted and shown; run as the SQL editor runs and always rolled back.
 */
export function PolicyPreview({ schema, table }: { schema: string; table: string }) {
  const { session } = useSession()
  const [role, setRole] = useState('authenticated')
  const [userId, setUserId] = useState('')
  const users = useQuery({
    queryKey: ['preview-users'],
    queryFn: async () => (await listUsers(session, 1, 200)).users,
  })
  const preview = useMutation({
    mutationFn: () =>
      api<Answer>('/sql', {
        method: 'POST',
        json: {
          query: `select count(*) from ${qualified(schema, table)}; select * from ${qualified(schema, table)} limit ${PREVIEW_ROWS}`,
          role,
          user_id: role === 'authenticated' && userId ? userId : null,
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
          <Field label="User">
            <Select
              aria-label="Preview user"
              value={userId}
              onChange={(e) => setUserId(e.target.value)}
            >
              <option value="">(no user: auth.uid() is null)</option>
              {users.data?.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.email ?? u.phone ?? u.id}
                </option>
              ))}
            </Select>
          </Field>
        ) : null}
        <Button size="sm" onClick={() => preview.mutate()} disabled={preview.isPending}>
          Preview rows
        </Button>
      </div>
      <ErrorNote error={preview.error} />
      {count ? (
        <p className="mt-2" aria-live="polite">
          {count.rows[0]?.[0]} {count.rows[0]?.[0] === '1' ? 'row' : 'rows'} visible
          {rows && rows.rows.length < Number(count.rows[0]?.[0])
            ? ` (first ${rows.rows.length} below)`
            : ''}
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
