// Bouquet requests: RLS, the form's messages, the honeypot, the per-address limit and the mail
// to the shop. Runs on a branch of its own (`supagate exec`, tests/shop/support.mjs).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { expectDenied } from '@supagate/testing'
import { nextSunday, onBranch, request, shopDay } from './support.mjs'

const on = onBranch()

/** A request sent from `ip`, as the trusted proxy in front of the gateway names it. */
const from = (ip) =>
  on.anon
    .from('bouquet_requests')
    .insert(request())
    .setHeader('x-forwarded-for', `198.51.100.1, ${ip}`)

test('visitors send requests but cannot read any; admins read them', async () => {
  const sent = request({ named_arrangement: 'Daisy', special_requests: '  Peonies  ' })
  const { error, status } = await on.anon.from('bouquet_requests').insert(sent)
  assert.equal(error, null)
  assert.equal(status, 201)
  await expectDenied(on.anon.from('bouquet_requests').select('*'))
  const { data } = await on.admin
    .from('bouquet_requests')
    .select('*')
    .eq('customer_email', sent.customer_email)
    .single()
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
  // A visitor cannot choose the status, mark it read or write the shop's notes.
  await expectDenied(on.anon.from('bouquet_requests').insert({ ...request(), status: 'done' }))
  await expectDenied(on.anon.from('bouquet_requests').insert({ ...request(), notes: 'paid' }))
})

test('a request a florist can fulfil: delivery or pick-up, a day the shop takes orders for, the recipient', async () => {
  const yesterday = shopDay(-1)
  const delivery = {
    fulfilment: 'delivery',
    recipient_name: 'Bo',
    delivery_address: '1 Main St, Cedar City',
  }
  // (what is sent, the database's message)
  const cases = [
    [{ fulfilment: null }, 'Please choose delivery or pick-up'],
    [
      { fulfilment: 'drone' },
      'new row for relation "bouquet_requests" violates check constraint "bouquet_requests_fulfilment_check"',
    ],
    [{ wanted_on: null }, 'Please choose a date'],
    [{ wanted_on: yesterday }, 'Please choose today or a later date'],
    [{ wanted_on: shopDay(400) }, 'Please choose a date within the next year'],
    [{ ...delivery, recipient_name: ' ' }, 'Recipient name is required'],
    [{ ...delivery, delivery_address: '' }, 'Delivery address is required'],
    [{ card_message: 'x'.repeat(251) }, 'Card message must be at most 250 characters'],
  ]
  for (const [over, message] of cases) {
    const { error } = await on.anon.from('bouquet_requests').insert(request(over))
    assert.equal(error?.message, message, JSON.stringify(over))
  }
  // A day the shop closed, and a same-day order past the cut-off, in the shop's words.
  const closed = shopDay(5)
  assert.equal(
    (await on.admin.from('shop_closures').insert({ day: closed, note: 'Inventory day' })).error,
    null,
  )
  assert.equal(
    (await on.anon.from('bouquet_requests').insert(request({ wanted_on: closed }))).error?.message,
    'We are closed that day (Inventory day). Please choose another date.',
  )
  assert.equal(
    (await on.admin.from('shop_settings').update({ same_day_cutoff: '00:00' }).eq('id', true))
      .error,
    null,
  )
  assert.equal(
    (await on.anon.from('bouquet_requests').insert(request({ wanted_on: shopDay(0) }))).error
      ?.message,
    'Same-day orders must be placed before 12:00 AM. Please choose a later date or call us.',
  )
  assert.equal(
    (await on.admin.from('shop_settings').update({ same_day_cutoff: '14:00' }).eq('id', true))
      .error,
    null,
  )

  // What the form needs to know, for anyone.
  const { data: options } = await on.anon.rpc('request_options')
  assert.equal(options.same_day_cutoff, '14:00')
  assert.deepEqual(options.size_prices, { good: 45, better: 65, best: 95 })
  assert.ok(options.closed.some((c) => c.day === closed && c.note === 'Inventory day'))

  // A delivery is kept with its recipient, card and the size's price; a pick-up drops an address.
  const id = crypto.randomUUID()
  const sent = request({
    id,
    size: 'better',
    ...delivery,
    recipient_phone: '435-555-0111',
    card_message: ' Get well soon ',
  })
  assert.equal((await on.anon.from('bouquet_requests').insert(sent)).error, null)
  // Sent again (its answer was lost): the same request, not a second one.
  const again = await on.anon.from('bouquet_requests').insert(sent)
  assert.equal(again.error?.code, '23505')
  const { data: kept } = await on.admin
    .from('bouquet_requests')
    .select('*')
    .eq('customer_email', sent.customer_email)
  assert.equal(kept.length, 1)
  assert.equal(kept[0].reference, id.replaceAll('-', '').slice(0, 8).toUpperCase())
  assert.deepEqual(
    [kept[0].fulfilment, kept[0].recipient_name, kept[0].card_message, Number(kept[0].size_price)],
    ['delivery', 'Bo', 'Get well soon', 65],
  )
  const pickup = request({ delivery_address: 'ignored for a pick-up', recipient_name: 'x' })
  assert.equal((await on.anon.from('bouquet_requests').insert(pickup)).error, null)
  const { data: p } = await on.admin
    .from('bouquet_requests')
    .select('delivery_address, recipient_name')
    .eq('customer_email', pickup.customer_email)
    .single()
  assert.deepEqual(p, { delivery_address: null, recipient_name: null })

  // The shop keeps notes on it.
  assert.equal(
    (await on.admin.from('bouquet_requests').update({ notes: 'Quoted $70' }).eq('id', id)).error,
    null,
  )
  const { data: noted } = await on.admin
    .from('bouquet_requests')
    .select('notes')
    .eq('id', id)
    .single()
  assert.equal(noted.notes, 'Quoted $70')
})

test("the shop's week: no pick-up or delivery on a weekday it is closed; only admins change the week", async () => {
  const sunday = nextSunday()
  const monday = new Date(Date.parse(`${sunday}T12:00:00Z`) + 86400000).toISOString().slice(0, 10)
  for (const fulfilment of ['pickup', 'delivery']) {
    const { error, status } = await on.anon.from('bouquet_requests').insert(
      request({
        fulfilment,
        wanted_on: sunday,
        recipient_name: 'Bo',
        delivery_address: '1 Main St',
      }),
    )
    assert.equal(status, 400)
    assert.equal(
      error?.message,
      'We are closed on Sundays. Please choose another date.',
      fulfilment,
    )
  }
  // Everyone reads the week with the form's options.
  const { data: options } = await on.anon.rpc('request_options')
  assert.deepEqual(
    options.hours.map((d) => [d.weekday, d.opens, d.closes]),
    [
      [1, '09:00', '18:00'],
      [2, '09:00', '18:00'],
      [3, '09:00', '18:00'],
      [4, '09:00', '18:00'],
      [5, '09:00', '18:00'],
      [6, '10:00', '16:00'],
      [7, null, null],
    ],
  )
  // Visitors cannot change it; the owner can, and the rules follow at once.
  await expectDenied(on.anon.rpc('save_shop_hours', { week: options.hours }))
  const week = options.hours.map((d) =>
    d.weekday === 7
      ? { ...d, opens: '11:00', closes: '15:00' }
      : d.weekday === 1
        ? { ...d, opens: null, closes: null }
        : d,
  )
  assert.equal((await on.admin.rpc('save_shop_hours', { week })).error, null)
  // (From an address of its own: the other tests count the requests from this machine's.)
  const sent = on.anon
    .from('bouquet_requests')
    .insert(request({ wanted_on: sunday }))
    .setHeader('x-forwarded-for', '198.51.100.1, 203.0.113.70')
  assert.equal((await sent).error, null)
  assert.equal(
    (await on.anon.from('bouquet_requests').insert(request({ wanted_on: monday }))).error?.message,
    'We are closed on Mondays. Please choose another date.',
  )
  // A week that does not name each day once, or closes before it opens, is refused.
  assert.equal(
    (await on.admin.rpc('save_shop_hours', { week: week.slice(1) })).error?.message,
    'The week needs each of the seven days once',
  )
  const backwards = week.map((d) =>
    d.weekday === 2 ? { ...d, opens: '18:00', closes: '09:00' } : d,
  )
  assert.match(
    (await on.admin.rpc('save_shop_hours', { week: backwards })).error?.message ?? '',
    /shop_hours_closes_after_opening/,
  )
  assert.equal((await on.admin.rpc('save_shop_hours', { week: options.hours })).error, null)
})

test('a filled honeypot is answered like a success and stores nothing', async () => {
  const bot = request({ website: 'http://spam.example' })
  const { error, status } = await on.anon.from('bouquet_requests').insert(bot)
  assert.equal(error, null)
  assert.equal(status, 201)
  const { count } = await on.service
    .from('bouquet_requests')
    .select('*', { count: 'exact', head: true })
    .eq('customer_email', bot.customer_email)
  assert.equal(count, 0)
})

test('five requests an hour per address; another address is not held back', async () => {
  for (let i = 0; i < 5; i++) assert.equal((await from('203.0.113.9')).error, null)
  const sixth = await from('203.0.113.9')
  assert.equal(sixth.status, 429)
  assert.match(
    sixth.error.message,
    /^We have received several requests from your network in the last hour\. To be sure yours reaches us, please call us on \(435\) 555-0148\.$/,
  )
  assert.equal((await from('203.0.113.10')).error, null)
  // The address is the proxy's entry, not what the client put further left.
  const { count } = await on.service
    .from('bouquet_requests')
    .select('*', { count: 'exact', head: true })
    .eq('client_address', '203.0.113.9')
  assert.equal(count, 5)
})

/** The newest caught mail to `to` whose subject matches, waited for. */
async function mailTo(to, subject) {
  for (let i = 0; i < 50; i++) {
    const found = (await on.branch.mail(to)).find((m) => subject.test(m.subject))
    if (found) return found
    await new Promise((r) => setTimeout(r, 100))
  }
  assert.fail(`no mail to ${to} about ${subject}`)
}

test('a new request is mailed to the shop from the shop, replies going to the customer, and the customer gets a confirmation; without an address, no shop mail', async () => {
  const id = crypto.randomUUID()
  const reference = id.replaceAll('-', '').slice(0, 8).toUpperCase()
  const sent = request({ id, customer_name: 'Mail Check', occasion: 'love-romance' })
  assert.equal((await on.anon.from('bouquet_requests').insert(sent)).error, null)
  const found = await mailTo(
    'hello@bluebellandsage.com',
    new RegExp(`^Bouquet request ${reference} from Mail Check$`),
  )
  assert.match(found.text, /Phone: 435-555-0100/)
  assert.match(found.text, /Colors: Pink, Greens/)
  assert.match(found.text, /Occasion: Love & Romance/, 'labels, not raw values')
  assert.match(found.text, /Pick-up on \w+day, /)
  assert.match(
    found.text,
    new RegExp(`Open it in the admin panel: http://127\\.0\\.0\\.1:54321/admin/requests/${id}`),
  )
  const shopMail = (await on.branch.mail('hello@bluebellandsage.com')).find(
    (m) => m.subject === found.subject,
  )
  assert.deepEqual(shopMail.from, {
    name: 'Bluebell & Sage Flowers',
    address: 'hello@bluebellandsage.com',
  })
  assert.deepEqual(shopMail.reply_to, [sent.customer_email])
  const confirmation = await mailTo(
    sent.customer_email,
    new RegExp(`^Your bouquet request ${reference} at Bluebell & Sage Flowers$`),
  )
  assert.match(confirmation.text, /We will call you on 435-555-0100 within 24 hours/)
  assert.match(confirmation.text, new RegExp(`Reference: ${reference}`))

  assert.equal(
    (await on.admin.from('shop_settings').update({ notify_email: null }).eq('id', true)).error,
    null,
  )
  assert.equal(
    (await on.anon.from('bouquet_requests').insert(request({ customer_name: 'No Mail' }))).error,
    null,
  )
  await new Promise((r) => setTimeout(r, 500))
  const all = await on.branch.mail()
  assert.equal(all.filter((m) => / from No Mail$/.test(m.subject)).length, 0)
  // Visitors cannot read or change where mail goes.
  await expectDenied(on.anon.from('shop_settings').select('*'))
})
