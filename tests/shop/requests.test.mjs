// Bouquet requests: RLS, the form's messages, the honeypot, the per-address limit and the mail
// to the shop. Runs on a branch of its own (`supagate exec`, tests/shop/support.mjs).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { expectDenied } from '@supagate/testing'
import { onBranch, request } from './support.mjs'

const on = onBranch()

/** A request sent from `ip`, as the trusted proxy in front of the gateway names it. */
const from = (ip) => on.anon.from('bouquet_requests').insert(request()).setHeader('x-forwarded-for', `198.51.100.1, ${ip}`)

test('visitors send requests but cannot read any; admins read them', async () => {
  const sent = request({ named_arrangement: 'Daisy', special_requests: '  Peonies  ' })
  const { error, status } = await on.anon.from('bouquet_requests').insert(sent)
  assert.equal(error, null)
  assert.equal(status, 201)
  await expectDenied(on.anon.from('bouquet_requests').select('*'))
  const { data } = await on.admin.from('bouquet_requests').select('*').eq('customer_email', sent.customer_email).single()
  assert.equal(data.status, 'new')
  assert.equal(data.read_at, null)
  assert.equal(data.special_requests, 'Peonies')
  assert.deepEqual(data.colors, ['Pink', 'Greens'])
  assert.equal(data.client_address, '127.0.0.1')
})

test("the database checks every field with the form's messages", async () => {
  const cases = [
    [{ size: 'huge' }, 'Please select a size'],
    [{ colors: [] }, 'Please select at least one color'],
    [{ colors: ['Pink', 'Gold'] }, 'Please select at least one color'],
    [{ design_style: 'baroque' }, 'Please select a design style'],
    [{ occasion: 'party' }, 'Please select an occasion'],
    [{ customer_name: '   ' }, 'Name is required'],
    [{ customer_phone: '' }, 'Phone number is required'],
    [{ customer_email: 'ann@' }, 'Valid email is required'],
    [{ special_requests: 'x'.repeat(2001) }, 'Special requests must be at most 2000 characters'],
  ]
  for (const [over, message] of cases) {
    const { error, status } = await on.anon.from('bouquet_requests').insert(request(over))
    assert.equal(status, 400, message)
    assert.equal(error.message, message)
  }
  // A visitor cannot choose the status or mark it read.
  await expectDenied(on.anon.from('bouquet_requests').insert({ ...request(), status: 'done' }))
})

test('a filled honeypot is answered like a success and stores nothing', async () => {
  const bot = request({ website: 'http://spam.example' })
  const { error, status } = await on.anon.from('bouquet_requests').insert(bot)
  assert.equal(error, null)
  assert.equal(status, 201)
  const { count } = await on.service.from('bouquet_requests').select('*', { count: 'exact', head: true }).eq('customer_email', bot.customer_email)
  assert.equal(count, 0)
})

test('five requests an hour per address; another address is not held back', async () => {
  for (let i = 0; i < 5; i++) assert.equal((await from('203.0.113.9')).error, null)
  const sixth = await from('203.0.113.9')
  assert.equal(sixth.status, 429)
  assert.match(sixth.error.message, /Please call us/)
  assert.equal((await from('203.0.113.10')).error, null)
  // The address is the proxy's entry, not what the client put further left.
  const { count } = await on.service.from('bouquet_requests').select('*', { count: 'exact', head: true }).eq('client_address', '203.0.113.9')
  assert.equal(count, 5)
})

test('a new request is mailed to the shop; without an address, no mail', async () => {
  const sent = request({ customer_name: 'Mail Check' })
  assert.equal((await on.anon.from('bouquet_requests').insert(sent)).error, null)
  let found
  for (let i = 0; i < 50 && !found; i++) {
    found = (await on.branch.mail('hello@bluebellandsage.com')).find((m) => m.subject === 'Bouquet request from Mail Check')
    if (!found) await new Promise((r) => setTimeout(r, 100))
  }
  assert.ok(found, 'the shop got no mail')
  assert.match(found.text, /Phone: 435-555-0100/)
  assert.match(found.text, /Colors: Pink, Greens/)

  assert.equal((await on.admin.from('shop_settings').update({ notify_email: null }).eq('id', true)).error, null)
  assert.equal((await on.anon.from('bouquet_requests').insert(request({ customer_name: 'No Mail' }))).error, null)
  await new Promise((r) => setTimeout(r, 500))
  const all = await on.branch.mail()
  assert.equal(all.filter((m) => m.subject === 'Bouquet request from No Mail').length, 0)
  // Visitors cannot read or change where mail goes.
  await expectDenied(on.anon.from('shop_settings').select('*'))
})
