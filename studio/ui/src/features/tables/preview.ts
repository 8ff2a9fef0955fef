/**
 * Who a policy preview ran as, from the SQL answer's role and claims: the role, and for a user
 * the claims RLS reads most (sub, email, aal) — those of the token Studio signs for them.
 */
export function ranAs(role: string, claims: Record<string, unknown> | null): string {
  const sub = claims?.sub
  if (typeof sub !== 'string' || sub === '') return `${role} (no user: auth.uid() is null)`
  const parts = [`sub ${sub}`]
  if (typeof claims?.email === 'string' && claims.email) parts.push(`email ${claims.email}`)
  if (typeof claims?.aal === 'string') parts.push(claims.aal)
  return `${role}: ${parts.join(', ')}`
}
