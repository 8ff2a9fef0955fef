// The shop's own server-side rules, through supabase-js as the site and the admin panel call
// them: bouquet requests (RLS, the form's messages, honeypot, per-address limit, the mail to the
// shop), staff functions, and the writes that happen in one transaction.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { startGateway, DEMO_ADMIN } from '../support/gateway.mjs'
import { client, signedIn, uniqueEmail } from './helpers.mjs'

let gw
let anon
let admin
let service

before(async () => {
  // As behind a proxy that puts the client address in X-Forwarded-For (requests without the
  // header count as the TCP peer).
  gw = await startGateway({ env: { RATE_LIMIT_IP_HEADER: 'X-Forwarded-For' } })
  anon = client(gw)
  service = client(gw, gw.serviceKey)
  admin = await signedIn(gw, DEMO_ADMIN.email, DEMO_ADMIN.password)
})
after(async () => gw?.stop())

const request = (over = {}) => ({
  size: 'good',
  colors: ['Pink', 'Greens'],
  design_style: 'modern',
  occasion: 'birthday',
  customer_name: 'Ann Lee',
  customer_phone: '435-555-0100',
  customer_email: uniqueEmail('visitor'),
  ...over,
})

/** A request sent from `ip`, as the trusted proxy in front of the gateway names it. */
function from(ip) {
  return anon.from('bouquet_requests').insert(request()).setHeader('x-forwarded-for', `198.51.100.1, ${ip}`)
}

test('visitors send requests but cannot read any; admins read them', async () => {
  const sent = request({ named_arrangement: 'Daisy', special_requests: '  Peonies  ' })
  const { error, status } = await anon.from('bouquet_requests').insert(sent)
  assert.equal(error, null)
  assert.equal(status, 201)
  const peek = await anon.from('bouquet_requests').select('*')
  assert.equal(peek.error?.code, '42501')
  const { data } = await admin.from('bouquet_requests').select('*').eq('customer_email', sent.customer_email).single()
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
    const { error, status } = await anon.from('bouquet_requests').insert(request(over))
    assert.equal(status, 400, message)
    assert.equal(error.message, message)
  }
  // A visitor cannot choose the status or mark it read.
  const forged = await anon.from('bouquet_requests').insert({ ...request(), status: 'done' })
  assert.equal(forged.error?.code, '42501')
})

test('a filled honeypot is answered like a success and stores nothing', async () => {
  const bot = request({ website: 'http://spam.example' })
  const { error, status } = await anon.from('bouquet_requests').insert(bot)
  assert.equal(error, null)
  assert.equal(status, 201)
  const { count } = await service.from('bouquet_requests').select('*', { count: 'exact', head: true }).eq('customer_email', bot.customer_email)
  assert.equal(count, 0)
})

test('five requests an hour per address; another address is not held back', async () => {
  for (let i = 0; i < 5; i++) assert.equal((await from('203.0.113.9')).error, null)
  const sixth = await from('203.0.113.9')
  assert.equal(sixth.status, 429)
  assert.match(sixth.error.message, /Please call us/)
  assert.equal((await from('203.0.113.10')).error, null)
  // The address is the proxy's entry, not what the client put further left.
  const { count } = await service.from('bouquet_requests').select('*', { count: 'exact', head: true }).eq('client_address', '203.0.113.9')
  assert.equal(count, 5)
})

test('a new request is mailed to the shop; without an address, no mail', async () => {
  const sent = request({ customer_name: 'Mail Check' })
  assert.equal((await anon.from('bouquet_requests').insert(sent)).error, null)
  const mail = `${gw.status.MAILPIT_URL}/api/v1/messages`
  let found
  for (let i = 0; i < 50 && !found; i++) {
    const { messages } = await (await fetch(mail)).json()
    found = messages.find((m) => m.Subject === 'Bouquet request from Mail Check')
    if (!found) await new Promise((r) => setTimeout(r, 100))
  }
  assert.ok(found, 'the shop got no mail')
  assert.equal(found.To[0].Address, 'hello@bluebellandsage.com')
  const body = await (await fetch(`${gw.status.MAILPIT_URL}/api/v1/message/${found.ID}`)).json()
  assert.match(body.Text, /Phone: 435-555-0100/)
  assert.match(body.Text, /Colors: Pink, Greens/)

  assert.equal((await admin.from('shop_settings').update({ notify_email: null }).eq('id', true)).error, null)
  assert.equal((await anon.from('bouquet_requests').insert(request({ customer_name: 'No Mail' }))).error, null)
  await new Promise((r) => setTimeout(r, 500))
  const { messages } = await (await fetch(mail)).json()
  assert.equal(messages.filter((m) => m.Subject === 'Bouquet request from No Mail').length, 0)
  await admin.from('shop_settings').update({ notify_email: 'hello@bluebellandsage.com' }).eq('id', true)
  // Visitors cannot read or change where mail goes.
  assert.deepEqual((await anon.from('shop_settings').select('*')).error?.code, '42501')
})

test('staff functions: admins only; the last admin stays', async () => {
  const email = uniqueEmail('staff')
  await service.auth.admin.createUser({ email, password: 'secret-123', email_confirm: true })
  const visitor = await signedIn(gw, email, 'secret-123')
  const denied = await visitor.rpc('grant_admin', { email })
  assert.equal(denied.error?.code, '42501')
  assert.equal(denied.status, 403)
  assert.equal((await anon.rpc('list_admins')).status, 401)

  const missing = await admin.rpc('grant_admin', { email: 'nobody@example.com' })
  assert.equal(missing.status, 404)
  assert.match(missing.error.message, /No account uses the e-mail nobody@example.com/)

  assert.equal((await admin.rpc('grant_admin', { email: email.toUpperCase() })).error, null)
  const { data: admins } = await admin.rpc('list_admins')
  assert.deepEqual(admins.map((a) => a.email).sort(), [DEMO_ADMIN.email, email].sort())
  // The new admin may manage staff too; direct writes to user_roles are closed.
  const colleague = await signedIn(gw, email, 'secret-123')
  assert.equal((await colleague.from('user_roles').delete().eq('role', 'admin')).error?.code, '42501')
  assert.equal((await colleague.rpc('revoke_admin', { email: DEMO_ADMIN.email })).data, true)
  const last = await colleague.rpc('revoke_admin', { email })
  assert.equal(last.status, 409)
  assert.equal(last.error.message, 'The shop needs at least one administrator')
  // Put the demo admin back for the other tests.
  assert.equal((await service.rpc('grant_admin', { email: DEMO_ADMIN.email })).error, null)
  assert.equal((await service.rpc('revoke_admin', { email })).data, true)
})

test('save_product writes the product and its categories together, or neither', async () => {
  const { data: cats } = await admin.from('categories').select('id, slug').in('slug', ['plants', 'seasonal', 'everyday'])
  const id = (slug) => cats.find((c) => c.slug === slug).id
  const row = { name: 'Atomic Fern', sku: 'ATOM-1', base_price: 20, category_id: id('plants') }
  const made = await admin.rpc('save_product', { product: row, category_ids: [id('seasonal'), id('plants')] })
  assert.equal(made.error, null)
  const links = async () =>
    (await admin.from('product_categories').select('category_id').eq('product_id', made.data.id)).data.map((l) => l.category_id)
  // The primary category is not also an extra one.
  assert.deepEqual(await links(), [id('seasonal')])

  // A failing save changes nothing: not the name, not the links.
  const dup = await admin.rpc('save_product', {
    id: made.data.id,
    product: { ...row, name: 'Renamed', sku: 'BST-001' },
    category_ids: [id('everyday')],
  })
  assert.equal(dup.error?.code, '23505')
  const { data: still } = await admin.from('products').select('name').eq('id', made.data.id).single()
  assert.equal(still.name, 'Atomic Fern')
  assert.deepEqual(await links(), [id('seasonal')])
  const bad = await admin.rpc('save_product', { id: made.data.id, product: row, category_ids: ['00000000-0000-4000-8000-000000000000'] })
  assert.equal(bad.error?.code, '23503')
  assert.deepEqual(await links(), [id('seasonal')])

  const updated = await admin.rpc('save_product', { id: made.data.id, product: { ...row, base_price: 22 }, category_ids: [id('everyday')] })
  assert.equal(updated.data.base_price, 22)
  assert.deepEqual(await links(), [id('everyday')])
  // Only admins.
  assert.equal((await anon.rpc('save_product', { product: row, category_ids: [] })).status, 401)
  await admin.from('products').delete().eq('id', made.data.id)
})

test('apply_import reports each row and applies the found ones in one go', async () => {
  const { data, error } = await admin.rpc('apply_import', {
    rows: [
      { sku: 'PLT-001', name: 'Fig', product_internal_id: '900001' },
      { sku: 'NOPE-9', name: 'Ghost', product_internal_id: '900002' },
      { sku: 'PLT-003', name: '', product_internal_id: 'x'.repeat(101) },
    ],
  })
  assert.equal(error, null)
  assert.deepEqual(
    data.map((r) => [r.sku, r.status, r.name]),
    [['PLT-001', 'success', 'Fiddle Leaf Fig'], ['NOPE-9', 'not_found', 'Ghost'], ['PLT-003', 'error', 'Succulent Garden']],
  )
  const { data: fig } = await admin.from('products').select('ecwid_product_id').eq('sku', 'PLT-001').single()
  assert.equal(fig.ecwid_product_id, '900001')
  const tooMany = await admin.rpc('apply_import', { rows: Array.from({ length: 5001 }, () => ({ sku: 'a', product_internal_id: '1' })) })
  assert.match(tooMany.error.message, /at most 5000 rows/)
  const visitor = await anon.rpc('apply_import', { rows: [] })
  assert.equal(visitor.status, 401)
})

test('dashboard counts come from one call and match the tables', async () => {
  const { data, error } = await admin.rpc('dashboard_counts')
  assert.equal(error, null)
  const count = async (q) => (await q).count
  assert.equal(data.total, await count(admin.from('products').select('*', { count: 'exact', head: true })))
  assert.equal(data.available, await count(admin.from('products').select('*', { count: 'exact', head: true }).eq('is_available', true)))
  assert.equal(data.total - data.available, data.unavailable)
  assert.equal(data.categories, await count(admin.from('categories').select('*', { count: 'exact', head: true })))
  assert.equal(data.new_requests, await count(admin.from('bouquet_requests').select('*', { count: 'exact', head: true }).eq('status', 'new')))
})

test("the site's scripts come only from its own origin and the store widget's own hosts", async () => {
  const { readFile } = await import('node:fs/promises')
  const headers = await readFile(new URL('../../frontend/public/_headers', import.meta.url), 'utf8')
  const policies = headers.split('\n').filter((l) => l.trim().startsWith('Content-Security-Policy:'))
  assert.ok(policies.length >= 1)
  for (const policy of policies) {
    const script = policy.split(';').map((d) => d.trim()).find((d) => d.startsWith('script-src')) ?? ''
    // A wildcard over a shared hosting service lets anyone's script run on the shop's pages.
    for (const source of script.split(/\s+/).slice(1)) {
      assert.ok(!/^https?:$|^\*$|\*\.(cloudfront\.net|amazonaws\.com|github\.io|netlify\.app|vercel\.app)$/.test(source), `${source} in ${script}`)
    }
  }
})
