import { describe, expect, it } from 'vitest'
import { ranAs } from './preview'

describe('ranAs', () => {
  it('names a user by the claims RLS reads', () => {
    expect(
      ranAs('authenticated', {
        role: 'authenticated',
        sub: 'b1ebe11a-0000',
        email: 'admin@example.com',
        aal: 'aal1',
      }),
    ).toBe('authenticated: sub b1ebe11a-0000, email admin@example.com, aal1')
  })
  it('leaves out an empty email (a phone user)', () => {
    expect(ranAs('authenticated', { sub: 'u1', email: '', aal: 'aal1' })).toBe(
      'authenticated: sub u1, aal1',
    )
  })
  it('says when there is no user', () => {
    expect(ranAs('anon', { role: 'anon', iss: 'supabase-demo' })).toBe(
      'anon (no user: auth.uid() is null)',
    )
    expect(ranAs('authenticated', null)).toBe('authenticated (no user: auth.uid() is null)')
  })
})
