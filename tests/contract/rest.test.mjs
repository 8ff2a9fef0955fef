// The shop's data calls (SPEC.md §7) through the real supabase-js against a fresh gateway.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { startGateway, DEMO_ADMIN } from '../support/gateway.mjs'
import { client, signedIn } from './helpers.mjs'

let gw, anon, admin
before(async () => {
  gw = await startGateway()
  anon = client(gw)
  admin = await signedIn(gw, DEMO_ADMIN.email, DEMO_ADMIN.password)
})
after(async () => gw?.stop())

test('public listing algorithm of a category slug', async () => {
  const { data: category, error } = await anon
    .from('categories')
    .select('id')
    .eq('slug', 'best-sellers')
    .single()
  assert.equal(error, null)
  const { data: primary } = await anon
    .from('products')
    .select('*')
    .eq('is_available', true)
    .eq('category_id', category.id)
  const { data: links } = await anon
    .from('product_categories')
    .select('product_id')
    .eq('category_id', category.id)
  assert.ok(links.length > 0)
  const { data: linked } = await anon
    .from('products')
    .select('*')
    .eq('is_available', true)
    .in(
      'id',
      links.map((l) => l.product_id),
    )
  const merged = [...new Map([...primary, ...linked].map((p) => [p.id, p])).values()].sort((a, b) =>
    a.name.localeCompare(b.name),
  )
  assert.deepEqual(
    merged.map((p) => p.sku),
    ['SEA-001', 'BST-002', 'BST-003', 'EVD-002', 'BST-001', 'LOV-001', 'BST-004'],
  )
  assert.ok(merged.every((p) => p.is_available))
  assert.equal(typeof merged[0].base_price, 'number')
})

test('all available products ordered by name, and a missing slug', async () => {
  const { data } = await anon.from('products').select('*').eq('is_available', true).order('name')
  assert.equal(data.length, 21)
  assert.deepEqual(
    data.map((p) => p.name),
    [...data.map((p) => p.name)].sort((a, b) => (a < b ? -1 : 1)),
  )
  const { data: none, error } = await anon
    .from('categories')
    .select('id')
    .eq('slug', 'no-such-slug')
    .single()
  assert.equal(none, null)
  assert.equal(error.code, 'PGRST116')
})

test('product detail: available only', async () => {
  const cols =
    'id, name, description, base_price, main_image_url, ecwid_product_id, ecwid_product_slug'
  const { data: shown } = await anon.from('products').select('id').eq('sku', 'PLT-001').single()
  const { data, error } = await anon
    .from('products')
    .select(cols)
    .eq('id', shown.id)
    .eq('is_available', true)
    .maybeSingle()
  assert.equal(error, null)
  assert.deepEqual(Object.keys(data), cols.split(', '))
  const { data: hidden } = await admin.from('products').select('id').eq('sku', 'SEA-004').single()
  const r = await anon
    .from('products')
    .select(cols)
    .eq('id', hidden.id)
    .eq('is_available', true)
    .maybeSingle()
  assert.equal(r.data, null)
  assert.equal(r.error, null)
})

test('single and maybeSingle with 0, 1 and 2 rows', async () => {
  for (const [filter, rows] of [
    ['nope', 0],
    ['seasonal', 1],
  ]) {
    const s = await anon.from('categories').select('slug').eq('slug', filter).single()
    const m = await anon.from('categories').select('slug').eq('slug', filter).maybeSingle()
    if (rows === 1) {
      assert.deepEqual(s.data, { slug: 'seasonal' })
      assert.deepEqual(m.data, { slug: 'seasonal' })
    } else {
      assert.equal(s.status, 406)
      assert.equal(s.statusText, 'Not Acceptable')
      assert.equal(s.error.code, 'PGRST116')
      assert.equal(m.data, null)
      assert.equal(m.error, null)
    }
  }
  const two = await anon
    .from('categories')
    .select('slug')
    .in('slug', ['plants', 'seasonal'])
    .single()
  assert.equal(two.error.details, 'The result contains 2 rows')
  const twoMaybe = await anon
    .from('categories')
    .select('slug')
    .in('slug', ['plants', 'seasonal'])
    .maybeSingle()
  assert.equal(twoMaybe.error.code, 'PGRST116')
})

test('admin dashboard counts with head requests', async () => {
  const p = await admin.from('products').select('*', { count: 'exact', head: true })
  const c = await admin.from('categories').select('*', { count: 'exact', head: true })
  assert.equal(p.status, 200)
  assert.equal(p.data, null)
  assert.equal(p.count, 24)
  assert.equal(c.count, 8)
  const a = await anon.from('products').select('*', { count: 'exact', head: true })
  assert.equal(a.count, 21)
})

test('admin create, update, hide, link replace, lookup by sku, delete', async () => {
  const { data: cats } = await admin.from('categories').select('id, name').order('name')
  assert.equal(cats.length, 8)
  const { data: created, error } = await admin
    .from('products')
    .insert({
      name: 'Contract Tulips',
      sku: 'CT-1',
      base_price: 12.5,
      category_id: cats[0].id,
      is_available: true,
    })
    .select()
    .single()
  assert.equal(error, null)
  assert.equal(created.name, 'Contract Tulips')
  assert.equal(created.base_price, 12.5)

  // Link table: delete then insert, as the product form saves it.
  const del = await admin.from('product_categories').delete().eq('product_id', created.id)
  assert.equal(del.error, null)
  assert.equal(del.status, 204)
  const ins = await admin.from('product_categories').insert([
    { product_id: created.id, category_id: cats[1].id },
    { product_id: created.id, category_id: cats[2].id },
  ])
  assert.equal(ins.status, 201)
  assert.equal(ins.data, null)
  const { data: links } = await admin
    .from('product_categories')
    .select('category_id')
    .eq('product_id', created.id)
  assert.equal(links.length, 2)

  const upd = await admin.from('products').update({ is_available: false }).eq('id', created.id)
  assert.equal(upd.error, null)
  assert.equal(upd.status, 204)
  const { data: seen } = await anon.from('products').select('id').eq('id', created.id)
  assert.deepEqual(seen, [])

  const { data: bySku } = await admin
    .from('products')
    .select('id, name, sku')
    .eq('sku', 'CT-1')
    .maybeSingle()
  assert.deepEqual(bySku, { id: created.id, name: 'Contract Tulips', sku: 'CT-1' })
  const e = await admin
    .from('products')
    .update({ ecwid_product_id: '123456' })
    .eq('id', created.id)
    .select('ecwid_product_id')
  assert.deepEqual(e.data, [{ ecwid_product_id: '123456' }])

  const gone = await admin.from('products').delete().eq('id', created.id)
  assert.equal(gone.error, null)
  const { count } = await admin
    .from('product_categories')
    .select('*', { count: 'exact', head: true })
    .eq('product_id', created.id)
  assert.equal(count, 0, 'links go with their product')
})

test('errors as the client shows them', async () => {
  const denied = await anon.from('products').insert({ name: 'Sneaky' })
  assert.equal(denied.status, 401)
  assert.equal(denied.error.code, '42501')
  assert.match(denied.error.message, /row-level security/)
  const user = client(gw)
  await user.auth.signUp({ email: `nobody-${Date.now()}@example.com`, password: 'secret123' })
  const forbidden = await user.from('categories').insert({ name: 'X', slug: 'x-forbidden' })
  assert.equal(forbidden.status, 403)
  const dup = await admin.from('categories').insert({ name: 'Again', slug: 'seasonal' })
  assert.equal(dup.status, 409)
  assert.equal(dup.error.code, '23505')
  const badUuid = await anon.from('products').select('*').eq('id', undefined)
  assert.equal(badUuid.error.code, '22P02')
  const badSlug = await admin.from('categories').insert({ name: 'Bad', slug: 'Bad Slug' })
  assert.equal(badSlug.error.code, '23514')
  const missing = await anon.from('nope').select('*')
  assert.equal(missing.status, 404)
  assert.equal(missing.error.code, 'PGRST205')
  const col = await anon.from('products').select('nope')
  assert.equal(col.error.code, '42703')
})

test('range, order with nulls and ilike through the builder', async () => {
  const { data, count } = await anon
    .from('products')
    .select('name', { count: 'exact' })
    .order('name')
    .range(0, 4)
  assert.equal(data.length, 5)
  assert.equal(count, 21)
  const { data: found } = await anon.from('products').select('name').ilike('name', '%peace lily%')
  assert.deepEqual(found, [{ name: 'Peace Lily' }])
  const { data: ordered } = await anon
    .from('categories')
    .select('slug')
    .order('order_by', { ascending: false, nullsFirst: true })
    .limit(1)
  assert.deepEqual(ordered, [{ slug: 'memorial' }])
  const { data: or } = await anon
    .from('products')
    .select('sku')
    .or('sku.eq.PLT-001,sku.eq.PLT-002')
    .order('sku')
  assert.deepEqual(or, [{ sku: 'PLT-001' }, { sku: 'PLT-002' }])
})

test('upsert with on_conflict and ignore duplicates', async () => {
  const a = await admin
    .from('categories')
    .upsert({ name: 'Up', slug: 'upsert-cat' }, { onConflict: 'slug' })
    .select()
    .single()
  assert.equal(a.error, null)
  const b = await admin
    .from('categories')
    .upsert({ name: 'Up 2', slug: 'upsert-cat' }, { onConflict: 'slug' })
    .select()
    .single()
  assert.equal(b.data.name, 'Up 2')
  assert.equal(b.data.id, a.data.id)
  const c = await admin
    .from('categories')
    .upsert([{ name: 'Up 3', slug: 'upsert-cat' }], { onConflict: 'slug', ignoreDuplicates: true })
    .select()
  assert.deepEqual(c.data, [])
  await admin.from('categories').delete().eq('slug', 'upsert-cat')
})
