import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { useSession } from '@/lib/session'
import { Field, Input, Select } from '@/components/ui/input'
import { ErrorNote } from '@/components/ErrorNote'
import { listUsers } from './users'

/** A user chosen to act as: their id and how the page names them. */
export interface Chosen {
  id: string
  email: string
}

/**
 * A user of the project, searched by email through Auth's admin API: whom an Edge Function is
 * called as, or whose rows a policy preview shows (both with the claims of the token Studio's
 * server signs for them).
 */
export function UserPicker({
  chosen,
  onChoose,
  label = 'User',
  none = 'choose a user',
}: {
  chosen: Chosen | null
  onChoose: (u: Chosen | null) => void
  /** The list's accessible name. */
  label?: string
  /** What the empty choice says. */
  none?: string
}) {
  const { session } = useSession()
  const [find, setFind] = useState('')
  const users = useQuery({
    queryKey: ['picked-users', find],
    queryFn: () => listUsers(session, 1, 20, find),
  })
  return (
    <>
      <Field label="Find a user">
        <Input
          type="search"
          aria-label="Find a user"
          placeholder="email"
          value={find}
          onChange={(e) => setFind(e.target.value)}
          className="w-48"
        />
      </Field>
      <Field label="User">
        <Select
          aria-label={label}
          value={chosen?.id ?? ''}
          onChange={(e) => {
            const u = users.data?.users.find((x) => x.id === e.target.value)
            onChoose(u ? { id: u.id, email: u.email || u.phone || u.id } : null)
          }}
        >
          <option value="">{users.isLoading ? 'loading…' : none}</option>
          {chosen && !users.data?.users.some((u) => u.id === chosen.id) ? (
            <option value={chosen.id}>{chosen.email}</option>
          ) : null}
          {users.data?.users.map((u) => (
            <option key={u.id} value={u.id}>
              {u.email || u.phone || u.id}
            </option>
          ))}
        </Select>
      </Field>
      <ErrorNote error={users.error} />
    </>
  )
}
