// What the shop's suite shares: a branch of the shop's database per test file (the workbench's
// test kit), clients on it as a visitor, the demo administrator and the service role.
import { after, before } from 'node:test'
import WebSocket from 'ws'
import { branch, setClientDefaults } from '@supagate/testing'
import { nextSunday, shopDay } from '../support/dates.mjs'

// Node 20 has no WebSocket of its own; supabase-js makes its realtime client eagerly.
setClientDefaults({ realtime: { transport: WebSocket } })

/** The shop's demo administrator, created by supabase/seed.sql. */
export const DEMO_ADMIN = { email: 'admin@example.com', password: 'bloom-admin-123' }

let n = 0
export const uniqueEmail = (tag) => `${tag}-${Date.now()}-${n++}@example.com`

export { nextSunday, shopDay }

/** A bouquet request as the form sends it (a pick-up in three days). */
export const request = (over = {}) => ({
  size: 'good',
  colors: ['Pink', 'Greens'],
  design_style: 'modern',
  occasion: 'birthday',
  customer_name: 'Ann Lee',
  customer_phone: '435-555-0100',
  customer_email: uniqueEmail('visitor'),
  fulfilment: 'pickup',
  wanted_on: shopDay(),
  ...over,
})

/** Signs in on the branch as `email`. */
export async function signedIn(b, email, password) {
  const c = b.asAnon()
  const { error } = await c.auth.signInWithPassword({ email, password })
  if (error) throw error
  return c
}

/** This file's branch and its clients, made before its tests and dropped after them. */
export function onBranch() {
  const ctx = {}
  before(async () => {
    ctx.branch = await branch()
    ctx.anon = ctx.branch.asAnon()
    ctx.service = ctx.branch.asService()
    ctx.admin = await signedIn(ctx.branch, DEMO_ADMIN.email, DEMO_ADMIN.password)
  })
  after(async () => ctx.branch?.drop())
  return ctx
}
