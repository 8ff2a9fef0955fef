// Staff management: admins only, the last admin stays. On a branch of its own, so granting and
// revoking never disturbs the other files' administrator.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { expectDenied } from '@supagate/testing'
import { DEMO_ADMIN, onBranch, signedIn, uniqueEmail } from './support.mjs'

const on = onBranch()

test('staff functions: admins only; the last admin stays', async () => {
  const email = uniqueEmail('staff')
  const visitor = await on.branch.asUser(email, { password: 'secret-123' })
  const denied = await expectDenied(visitor.rpc('grant_admin', { email }))
  assert.equal(denied.code, '42501')
  assert.equal((await on.anon.rpc('list_admins')).status, 401)

  const missing = await on.admin.rpc('grant_admin', { email: 'nobody@example.com' })
  assert.equal(missing.status, 404)
  assert.match(missing.error.message, /No account uses the e-mail nobody@example.com/)

  assert.equal((await on.admin.rpc('grant_admin', { email: email.toUpperCase() })).error, null)
  const { data: admins } = await on.admin.rpc('list_admins')
  assert.deepEqual(admins.map((a) => a.email).sort(), [DEMO_ADMIN.email, email].sort())
  // The new admin may manage staff too; direct writes to user_roles are closed.
  const colleague = await signedIn(on.branch, email, 'secret-123')
  await expectDenied(colleague.from('user_roles').delete().eq('role', 'admin'))
  assert.equal((await colleague.rpc('revoke_admin', { email: DEMO_ADMIN.email })).data, true)
  const last = await colleague.rpc('revoke_admin', { email })
  assert.equal(last.status, 409)
  assert.equal(last.error.message, 'The shop needs at least one administrator')
})
