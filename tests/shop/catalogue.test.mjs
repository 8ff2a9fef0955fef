// The catalogue's writes that happen in one transaction, the import and the dashboard counts.
// On a branch of its own: what it writes no other file sees.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { onBranch } from './support.mjs'

const on = onBranch()

test('save_product writes the product and its categories together, or neither', async () => {
  const { data: cats } = await on.admin
    .from('categories')
    .select('id, slug')
    .in('slug', ['plants', 'seasonal', 'everyday'])
  const id = (slug) => cats.find((c) => c.slug === slug).id
  const row = { name: 'Atomic Fern', sku: 'ATOM-1', base_price: 20, category_id: id('plants') }
  const made = await on.admin.rpc('save_product', {
    product: row,
    category_ids: [id('seasonal'), id('plants')],
  })
  assert.equal(made.error, null)
  const links = async () =>
    (
      await on.admin.from('product_categories').select('category_id').eq('product_id', made.data.id)
    ).data.map((l) => l.category_id)
  // The primary category is not also an extra one.
  assert.deepEqual(await links(), [id('seasonal')])

  // A failing save changes nothing: not the name, not the links.
  const dup = await on.admin.rpc('save_product', {
    id: made.data.id,
    product: { ...row, name: 'Renamed', sku: 'BST-001' },
    category_ids: [id('everyday')],
  })
  assert.equal(dup.error?.code, '23505')
  const { data: still } = await on.admin
    .from('products')
    .select('name')
    .eq('id', made.data.id)
    .single()
  assert.equal(still.name, 'Atomic Fern')
  assert.deepEqual(await links(), [id('seasonal')])
  const bad = await on.admin.rpc('save_product', {
    id: made.data.id,
    product: row,
    category_ids: ['00000000-0000-4000-8000-000000000000'],
  })
  assert.equal(bad.error?.code, '23503')
  assert.deepEqual(await links(), [id('seasonal')])

  const updated = await on.admin.rpc('save_product', {
    id: made.data.id,
    product: { ...row, base_price: 22 },
    category_ids: [id('everyday')],
  })
  assert.equal(updated.data.base_price, 22)
  assert.deepEqual(await links(), [id('everyday')])
  // Only admins.
  assert.equal((await on.anon.rpc('save_product', { product: row, category_ids: [] })).status, 401)
})

test('a create sent again after its answer was lost saves onto the product it made, never a second one', async () => {
  const id = crypto.randomUUID()
  const row = { id, name: 'Retry Roses', sku: 'RETRY-1', base_price: 30 }
  const first = await on.admin.rpc('save_product', { product: row, category_ids: [] })
  assert.equal(first.error, null)
  assert.equal(first.data.id, id)
  const again = await on.admin.rpc('save_product', {
    product: { ...row, base_price: 32 },
    category_ids: [],
  })
  assert.equal(again.error, null)
  const { data } = await on.admin.from('products').select('id, base_price').eq('sku', 'RETRY-1')
  assert.deepEqual(data, [{ id, base_price: 32 }])
  // A category's create with its id, sent twice: one category, the second answer its key.
  const cat = { id: crypto.randomUUID(), name: 'Retry Days', slug: 'retry-days' }
  assert.equal((await on.admin.from('categories').insert(cat)).error, null)
  const twice = await on.admin.from('categories').insert(cat)
  assert.equal(twice.error?.code, '23505')
  assert.match(twice.error.message, /categories_pkey/)
  assert.equal(
    (await on.admin.from('categories').select('id').eq('slug', 'retry-days')).data.length,
    1,
  )
})

test('apply_import reports each row and applies the found ones in one go', async () => {
  const { data, error } = await on.admin.rpc('apply_import', {
    rows: [
      { sku: 'PLT-001', name: 'Fig', product_internal_id: '900001' },
      { sku: 'NOPE-9', name: 'Ghost', product_internal_id: '900002' },
      { sku: 'PLT-003', name: '', product_internal_id: 'x'.repeat(101) },
    ],
  })
  assert.equal(error, null)
  assert.deepEqual(
    data.map((r) => [r.sku, r.status, r.name]),
    [
      ['PLT-001', 'success', 'Fiddle Leaf Fig'],
      ['NOPE-9', 'not_found', 'Ghost'],
      ['PLT-003', 'error', 'Succulent Garden'],
    ],
  )
  const { data: fig } = await on.admin
    .from('products')
    .select('ecwid_product_id')
    .eq('sku', 'PLT-001')
    .single()
  assert.equal(fig.ecwid_product_id, '900001')
  const tooMany = await on.admin.rpc('apply_import', {
    rows: Array.from({ length: 5001 }, () => ({ sku: 'a', product_internal_id: '1' })),
  })
  assert.match(tooMany.error.message, /at most 5000 rows/)
  assert.equal((await on.anon.rpc('apply_import', { rows: [] })).status, 401)
})

test('dashboard counts come from one call and match the tables', async () => {
  const { data, error } = await on.admin.rpc('dashboard_counts')
  assert.equal(error, null)
  const count = async (q) => (await q).count
  const head = { count: 'exact', head: true }
  assert.equal(data.total, await count(on.admin.from('products').select('*', head)))
  assert.equal(
    data.available,
    await count(on.admin.from('products').select('*', head).eq('is_available', true)),
  )
  assert.equal(data.total - data.available, data.unavailable)
  assert.equal(data.categories, await count(on.admin.from('categories').select('*', head)))
  assert.equal(
    data.new_requests,
    await count(on.admin.from('bouquet_requests').select('*', head).eq('status', 'new')),
  )
})
