import AxeBuilder from '@axe-core/playwright'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { gatewayBinary, repoRoot } from '../support/gateway.mjs'
import { png } from '../support/png.mjs'
import { expect, gotoAndSettle, shopDay, test } from './fixtures'
import type { APIRequestContext, Page } from '@playwright/test'

// These tests change their gateway's catalogue in order, so they run one after another. The
// site tests run on a gateway of their own (playwright.config.ts), so they never see these edits.
test.describe.configure({ mode: 'serial' })

// The platform's user command, then the shop's own staff script, against this run's gateway.
const env = {
  ...process.env,
  RUST_LOG: 'error',
  SUPAGATE_DATA_DIR: process.env.E2E_ADMIN_DATA_DIR!,
}
const supagate = (...args: string[]) =>
  execFileSync(gatewayBinary, ['--workdir', repoRoot, ...args], { encoding: 'utf8', env })
const shopAdmin = (...args: string[]) =>
  execFileSync(join(repoRoot, 'scripts/shop-admin'), args, {
    encoding: 'utf8',
    env: { ...env, SUPAGATE_BIN: gatewayBinary },
  })

const ADMIN = { email: 'florist.admin@example.com', password: 'peonies-and-roses' }

async function signIn(page: Page, email: string, password: string) {
  await gotoAndSettle(page, '/auth')
  await page.getByRole('tab', { name: 'Sign In' }).click()
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign In', exact: true }).click()
}

/** A link of the admin sidebar (its name may carry a count, as "Requests 1 unread"). */
const nav = (page: Page, name: string) =>
  page
    .getByRole('navigation', { name: 'Admin' })
    .getByRole('link', { name: new RegExp(`^${name}`) })

const toast = (page: Page, text: string) => page.getByText(text, { exact: true }).first()

/** A REST call with the admin gateway's service key (past RLS). */
function service(
  request: APIRequestContext,
  method: 'get' | 'post' | 'delete',
  path: string,
  data?: unknown,
) {
  const key = process.env.E2E_ADMIN_SERVICE_KEY!
  return request[method](`${process.env.E2E_ADMIN_URL}${path}`, {
    headers: { apikey: key, authorization: `Bearer ${key}`, prefer: 'return=representation' },
    data,
  })
}

/** Whether an object is in a public bucket of the admin gateway. */
async function stored(request: APIRequestContext, bucket: string, name: string) {
  return (
    await request.get(`${process.env.E2E_ADMIN_URL}/storage/v1/object/public/${bucket}/${name}`)
  ).ok()
}

async function restCount(request: APIRequestContext, query: string) {
  const key = process.env.E2E_ADMIN_SERVICE_KEY!
  const res = await request.head(`${process.env.E2E_ADMIN_URL}/rest/v1/${query}`, {
    headers: { apikey: key, authorization: `Bearer ${key}`, prefer: 'count=exact' },
  })
  return Number(res.headers()['content-range'].split('/')[1])
}

test('sign up, then a signed-in non-admin sees Access Denied', async ({ page }) => {
  const email = `visitor-${Date.now()}@example.com`
  await gotoAndSettle(page, '/auth')
  await expect(page.getByText('Admin Access')).toBeVisible()
  await page.getByRole('tab', { name: 'Sign Up' }).click()
  await page.getByLabel('Email').fill('not-an-email')
  await page.getByLabel('Password').fill('123')
  await page.getByRole('button', { name: 'Sign Up', exact: true }).click()
  await expect(page.getByRole('alert').filter({ hasText: 'Invalid email address' })).toBeVisible()
  await expect(
    page.getByRole('alert').filter({ hasText: 'Password must be at least 6 characters' }),
  ).toBeVisible()
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill('secret123')
  await page.getByRole('button', { name: 'Sign Up', exact: true }).click()
  await expect(toast(page, 'Account created successfully! Please sign in.')).toBeVisible()
  await expect(page.getByLabel('Email')).toHaveValue('')
  await expect(page.getByLabel('Password')).toHaveValue('')
  await signIn(page, email, 'secret123')
  await expect(page).toHaveURL(/\/admin$/)
  await expect(page.getByRole('heading', { name: 'Access Denied' })).toBeVisible()
  await page.getByRole('button', { name: 'Sign Out' }).click()
  await expect(page).toHaveURL(/\/auth$/)
  await page.getByRole('tab', { name: 'Sign Up' }).click()
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill('secret123')
  await page.getByRole('button', { name: 'Sign Up', exact: true }).click()
  await expect(
    toast(page, 'This email is already registered. Please sign in instead.'),
  ).toBeVisible()
})

test('wrong password shows the service message; /admin without a session goes to /auth', async ({
  page,
}) => {
  await page.goto('/admin/products')
  await expect(page).toHaveURL(/\/auth$/)
  await signIn(page, 'admin@example.com', 'not-the-password')
  await expect(toast(page, 'Invalid login credentials')).toBeVisible()
})

test('an admin made with the CLI manages the catalogue', async ({ page, request }) => {
  // The whole catalogue workflow: about 29 s on its own on a 2-core machine, more beside others.
  test.slow()
  expect(supagate('users', 'create', ADMIN.email, ADMIN.password)).toContain(
    `Created user ${ADMIN.email}`,
  )
  expect(shopAdmin('grant', ADMIN.email)).toContain('is an administrator')
  expect(shopAdmin('list')).toContain(ADMIN.email)
  await signIn(page, ADMIN.email, ADMIN.password)
  await expect(toast(page, 'Signed in successfully!')).toBeVisible()
  await expect(page).toHaveURL(/\/admin$/)

  // Dashboard counts match the database.
  const total = await restCount(request, 'products')
  const available = await restCount(request, 'products?is_available=eq.true')
  await expect(page.getByTestId('count-total-products')).toHaveText(String(total))
  await expect(page.getByTestId('count-available-products')).toHaveText(String(available))
  await expect(page.getByTestId('count-unavailable-products')).toHaveText(String(total - available))
  await expect(page.getByTestId('count-categories')).toHaveText(
    String(await restCount(request, 'categories')),
  )

  // Another admin's changes show without a reload (Realtime).
  const key = process.env.E2E_ADMIN_SERVICE_KEY!
  const rest = `${process.env.E2E_ADMIN_URL}/rest/v1/products`
  const headers = { apikey: key, authorization: `Bearer ${key}`, prefer: 'return=representation' }
  const created = await request.post(rest, {
    headers,
    data: { name: 'Live Tulips', base_price: 12, is_available: false },
  })
  expect(created.status()).toBe(201)
  const [live] = await created.json()
  await expect(page.getByTestId('count-total-products')).toHaveText(String(total + 1))
  await expect(page.getByTestId('count-unavailable-products')).toHaveText(
    String(total - available + 1),
  )
  expect((await request.delete(`${rest}?id=eq.${live.id}`, { headers })).status()).toBe(200)
  await expect(page.getByTestId('count-total-products')).toHaveText(String(total))

  // A new category: the slug follows the name.
  await page.getByRole('link', { name: 'Categories', exact: true }).click()
  await expect(page.getByTestId('category-row').first()).toContainText('Seasonal')
  await page.getByRole('link', { name: 'Add Category' }).click()
  await page.getByLabel('Name').fill('Prom Night Specials')
  await expect(page.getByLabel('Slug')).toHaveValue('prom-night-specials')
  await page.getByLabel('Slug').fill('Prom Night')
  await page.getByRole('button', { name: 'Create Category' }).click()
  await expect(page.getByText('Slug must be lowercase with hyphens')).toBeVisible()
  await page.getByLabel('Slug').fill('seasonal')
  await page.getByRole('button', { name: 'Create Category' }).click()
  await expect(
    toast(page, 'Another category already uses this slug. Choose a different one.'),
  ).toBeVisible()
  await page.getByLabel('Slug').fill('prom-night')
  await page.getByRole('button', { name: 'Create Category' }).click()
  await expect(toast(page, 'Category created successfully')).toBeVisible()
  await expect(page.getByTestId('category-row').filter({ hasText: 'prom-night' })).toBeVisible()

  // A new product with an uploaded image, primary category Plants and extra category Seasonal.
  await page.getByRole('link', { name: 'Products', exact: true }).click()
  await page.getByRole('link', { name: 'Add Product' }).click()
  await page.getByLabel('Name').fill('Maidenhair Fern')
  await page.getByLabel('SKU').fill('PLT-900')
  await page.getByLabel('Price ($)').fill('-3')
  await page.getByLabel('Description').fill('A delicate fern for a bright bathroom.')
  await page.getByRole('button', { name: 'Create Product' }).click()
  await expect(page.getByText('Price must be positive')).toBeVisible()
  await page.getByLabel('Price ($)').fill('34.5')
  await page.getByLabel('Primary category').selectOption({ label: 'Plants' })
  await page.getByTestId('additional-categories').getByLabel('Seasonal').check()
  await page
    .getByLabel('Main image: upload image')
    .setInputFiles({ name: 'fern.png', mimeType: 'image/png', buffer: png(16, 16, [90, 150, 90]) })
  await expect(toast(page, 'Image uploaded successfully')).toBeVisible()
  await expect(page.getByAltText('Preview of the chosen file')).toBeVisible()
  await page.getByRole('button', { name: 'Create Product' }).click()
  await expect(toast(page, 'Product created successfully')).toBeVisible()
  const row = page.getByTestId('product-row').filter({ hasText: 'Maidenhair Fern' })
  await expect(row).toContainText('$34.50')
  await expect(row).toContainText('Plants')
  // The image is kept as its name in the bucket, not as a URL of this API address.
  const [{ main_image_url: firstImage }] = await (
    await service(request, 'get', '/rest/v1/products?select=main_image_url&sku=eq.PLT-900')
  ).json()
  expect(firstImage).toMatch(/^[a-z0-9]+-\d+\.png$/)
  expect(await stored(request, 'product-images', firstImage)).toBe(true)

  // A duplicate SKU is explained in words, not with PostgreSQL's message.
  await page.getByRole('link', { name: 'Add Product' }).click()
  await page.getByLabel('Name').fill('Second Fern')
  await page.getByLabel('SKU').fill('PLT-900')
  await page.getByRole('button', { name: 'Create Product' }).click()
  await expect(
    toast(page, 'Another product already uses this SKU. Choose a different one.'),
  ).toBeVisible()
  await expect(page.getByText(/duplicate key/)).toHaveCount(0)
  // Ctrl+B while typing in a field is left to the field; the sidebar stays as it was.
  await page.getByLabel('Name').focus()
  await page.keyboard.press('Control+b')
  await expect(page.locator('aside[data-state]')).toHaveAttribute('data-state', 'expanded')
  await page.getByRole('link', { name: 'Cancel' }).click()

  // It shows on both occasion pages, with its uploaded image.
  for (const slug of ['plants', 'seasonal']) {
    await gotoAndSettle(page, `/occasions/${slug}`)
    await expect(page.getByRole('heading', { name: 'Maidenhair Fern' })).toBeVisible()
  }
  await expect(page.getByRole('img', { name: 'Maidenhair Fern' })).toHaveJSProperty(
    'naturalWidth',
    16,
  )

  // Hide it: gone from the public site.
  await gotoAndSettle(page, '/admin/products')
  await page.getByRole('button', { name: 'Hide Maidenhair Fern' }).click()
  await expect(toast(page, 'Product disabled')).toBeVisible()
  await gotoAndSettle(page, '/occasions/plants')
  await expect(page.getByRole('heading', { name: 'Peace Lily' })).toBeVisible()
  await expect(page.getByText('Maidenhair Fern')).toHaveCount(0)

  // Edit, then delete after confirming.
  await gotoAndSettle(page, '/admin/products')
  await page.getByRole('link', { name: 'Edit Maidenhair Fern' }).click()
  await expect(page.getByLabel('Name')).toHaveValue('Maidenhair Fern')
  await expect(page.getByTestId('additional-categories').getByLabel('Seasonal')).toBeChecked()
  await page.getByLabel('Price ($)').fill('36')
  // A text file named .png is refused by the server, which reads what the file is.
  await page.getByLabel('Main image: upload image').setInputFiles({
    name: 'notes.png',
    mimeType: 'image/png',
    buffer: Buffer.from('not a picture at all\n'),
  })
  await expect(toast(page, 'Upload failed')).toBeVisible()
  await expect(
    page.getByText('This file is not a PNG, JPG or WEBP image, whatever its name says.').first(),
  ).toBeVisible()
  // And an admin cannot go round it by writing to the bucket directly.
  const token = await page.evaluate(() => {
    const key = Object.keys(localStorage).find((k) => k.endsWith('-auth-token'))!
    return JSON.parse(localStorage.getItem(key)!).access_token as string
  })
  const direct = await request.post(
    `${process.env.E2E_ADMIN_URL}/storage/v1/object/product-images/sneaky.png`,
    {
      headers: {
        apikey: process.env.E2E_ADMIN_ANON_KEY!,
        authorization: `Bearer ${token}`,
        'content-type': 'image/png',
      },
      data: png(4, 4, [1, 2, 3]),
    },
  )
  // storage-api's answer to a row-level security refusal: HTTP 400 carrying statusCode 403.
  expect(direct.status()).toBe(400)
  expect(await direct.json()).toMatchObject({
    statusCode: '403',
    message: 'new row violates row-level security policy',
  })
  // A new image replaces the first: saving removes the old object. It is stored as what it is.
  await page
    .getByLabel('Main image: upload image')
    .setInputFiles({ name: 'fern2.webp', mimeType: 'image/png', buffer: png(8, 8, [40, 120, 60]) })
  await expect(toast(page, 'Image uploaded successfully')).toBeVisible()
  await page.getByRole('button', { name: 'Update Product' }).click()
  await expect(toast(page, 'Product updated successfully')).toBeVisible()
  await expect(
    page.getByTestId('product-row').filter({ hasText: 'Maidenhair Fern' }),
  ).toContainText('$36.00')
  const [{ main_image_url: secondImage }] = await (
    await service(request, 'get', '/rest/v1/products?select=main_image_url&sku=eq.PLT-900')
  ).json()
  expect(secondImage).not.toBe(firstImage)
  expect(await stored(request, 'product-images', firstImage)).toBe(false)
  expect(await stored(request, 'product-images', secondImage)).toBe(true)
  // Icons say what they do.
  await page.getByRole('link', { name: 'Edit Maidenhair Fern' }).hover()
  await expect(page.getByRole('tooltip')).toHaveText('Edit Maidenhair Fern')
  await expect(page.getByRole('button', { name: 'Show Maidenhair Fern' })).toHaveText('Show')
  await expect(page.getByRole('button', { name: 'Hide Pastel Dream' })).toHaveText('Hide')
  await page.getByRole('button', { name: 'Delete Maidenhair Fern' }).click()
  await expect(page.getByRole('alertdialog')).toContainText(
    'Are you sure you want to delete this product?',
  )
  await page.getByRole('button', { name: 'Delete', exact: true }).click()
  await expect(toast(page, 'Product deleted')).toBeVisible()
  await expect(page.getByTestId('product-row').filter({ hasText: 'Maidenhair Fern' })).toHaveCount(
    0,
  )
  // Deleting the product removed its image too.
  await expect.poll(() => stored(request, 'product-images', secondImage)).toBe(false)

  // The session survives a reload; Ctrl+B collapses the sidebar and the cookie remembers it.
  await page.reload()
  await expect(page.getByRole('heading', { level: 1, name: 'Products', exact: true })).toBeVisible()
  const sidebar = page.locator('aside[data-state]')
  await expect(sidebar).toHaveAttribute('data-state', 'expanded')
  await page.keyboard.press('Control+b')
  await expect(sidebar).toHaveAttribute('data-state', 'collapsed')
  expect((await page.context().cookies()).find((c) => c.name === 'sidebar_state')?.value).toBe(
    'false',
  )
  await page.reload()
  await expect(page.locator('aside[data-state]')).toHaveAttribute('data-state', 'collapsed')
  await expect(page.getByRole('heading', { level: 1, name: 'Products', exact: true })).toBeVisible()
  await page.keyboard.press('Control+b')
  await expect(page.locator('aside[data-state]')).toHaveAttribute('data-state', 'expanded')
})

test('CSV import: found, quoted, not found and skipped rows', async ({ page, request }) => {
  await signIn(page, ADMIN.email, ADMIN.password)
  await expect(page).toHaveURL(/\/admin$/)
  await page.getByRole('link', { name: 'Import Products' }).click()
  await page.getByRole('button', { name: 'Import' }).click()
  await expect(toast(page, 'Please select a CSV file')).toBeVisible()
  await page
    .getByLabel('CSV file')
    .setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('sku,id\nA,1\n') })
  await page.getByRole('button', { name: 'Import' }).click()
  await expect(
    page.getByText(/missing required columns: product_sku, product_internal_id/).first(),
  ).toBeVisible()
  const csv = [
    '\uFEFFproduct_internal_id,product_name,product_sku',
    '800001,Peace Lily,PLT-002',
    '800002,"Autumn Harvest Bouquet, large",SEA-001',
    '800003,Ghost,NOPE-1',
    ',No id,PLT-001',
    '800005,No sku,',
  ].join('\r\n')
  await page
    .getByLabel('CSV file')
    .setInputFiles({ name: 'export.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
  await page.getByRole('button', { name: 'Import' }).click()
  await expect(page.getByTestId('import-summary')).toHaveText(
    '2 updated · 1 not found · 0 failed · 2 skipped',
  )
  const ghost = page.getByTestId('import-row').filter({ hasText: 'NOPE-1' })
  await expect(ghost).toContainText('Product not found in database')
  await expect(ghost).toContainText('Not found')
  await expect(page.getByTestId('import-row').filter({ hasText: 'not_found' })).toHaveCount(0)
  await expect(page.getByTestId('import-row').filter({ hasText: 'PLT-002' })).toContainText(
    'Updated',
  )
  await expect(toast(page, 'Successfully updated 2 product(s)')).toBeVisible()
  const key = process.env.E2E_ADMIN_SERVICE_KEY!
  const res = await request.get(
    `${process.env.E2E_ADMIN_URL}/rest/v1/products?select=sku,ecwid_product_id&sku=in.(PLT-002,SEA-001)&order=sku`,
    {
      headers: { apikey: key, authorization: `Bearer ${key}` },
    },
  )
  expect(await res.json()).toEqual([
    { sku: 'PLT-002', ecwid_product_id: '800001' },
    { sku: 'SEA-001', ecwid_product_id: '800002' },
  ])
  await page.getByRole('button', { name: 'Sign Out' }).click()
  await expect(toast(page, 'Signed out successfully')).toBeVisible()
  await expect(page).toHaveURL(/\/auth$/)
})

test("a visitor's bouquet request reaches the admin inbox live, and the shop by mail", async ({
  page,
  browser,
  request,
}) => {
  await signIn(page, ADMIN.email, ADMIN.password)
  await expect(page).toHaveURL(/\/admin$/)
  await nav(page, 'Requests').click()
  await expect(page.getByRole('heading', { level: 1, name: 'Requests', exact: true })).toBeVisible()
  await expect(page.getByText('No requests yet')).toBeVisible()
  await expect(page.getByTestId('unread-count')).toHaveCount(0)

  // A visitor, in a browser of their own, sends a request.
  const visitor = await browser.newPage({ baseURL: process.env.E2E_ADMIN_URL })
  await visitor.goto('/build-bouquet')
  await visitor.getByLabel('Best').check()
  await visitor.getByLabel('Yellow').check()
  await visitor.getByLabel('Oranges').check()
  await visitor.getByLabel('Traditional').check()
  await visitor.getByLabel('Occasion').selectOption('get-well')
  await visitor
    .getByLabel('Special requests (optional)')
    .fill('For my neighbour, after her surgery.')
  await visitor.getByRole('radio', { name: /^Pick-up/ }).check()
  await visitor.getByLabel('Pick-up date').fill(shopDay(2))
  await visitor.getByLabel('Name', { exact: true }).fill('Rosa Diaz')
  await visitor.getByLabel('Phone', { exact: true }).fill('(435) 555-0199')
  await visitor.getByLabel('E-mail').fill('rosa@example.com')
  await visitor.getByRole('button', { name: 'Submit Bouquet Request' }).click()
  await expect(visitor.getByRole('heading', { level: 1, name: 'Request Received' })).toBeVisible()
  const reference = visitor.url().split('/').pop()!
  await visitor.close()

  // It appears without a reload, unread.
  const row = page.getByTestId('request-row').filter({ hasText: 'Rosa Diaz' })
  await expect(row).toBeVisible()
  await expect(row).toContainText('Get Well')
  await expect(row.getByRole('img', { name: 'Unread' })).toBeVisible()
  await expect(page.getByTestId('unread-count')).toContainText('1')

  // The shop got a mail about it.
  await expect
    .poll(async () => {
      const inbox = await (
        await request.get(`${process.env.E2E_ADMIN_MAIL_URL}/api/v1/messages`)
      ).json()
      return inbox.messages.map((m: { Subject: string }) => m.Subject)
    })
    .toContain(`Bouquet request ${reference} from Rosa Diaz`)

  // The dashboard lists it as new.
  await nav(page, 'Dashboard').click()
  await expect(page.getByTestId('count-new-requests')).toHaveText('1')
  await expect(page.getByTestId('dashboard-requests')).toContainText('Rosa Diaz')

  // Opened, it is read; the details, call and e-mail links; status changes.
  await page.getByTestId('dashboard-requests').getByRole('link', { name: 'Rosa Diaz' }).click()
  await expect(page.getByRole('heading', { name: 'Rosa Diaz' })).toBeVisible()
  await expect(page.getByText(reference)).toBeVisible()
  await expect(page.getByText('Best (luxury) · $95.00')).toBeVisible()
  await expect(page.getByText('Yellow, Oranges')).toBeVisible()
  await expect(page.getByText('For my neighbour, after her surgery.')).toBeVisible()
  await expect(page.getByRole('link', { name: 'Call (435) 555-0199' })).toHaveAttribute(
    'href',
    'tel:4355550199',
  )
  await expect(page.getByRole('link', { name: 'E-mail rosa@example.com' })).toHaveAttribute(
    'href',
    /^mailto:rosa@example\.com\?subject=/,
  )
  await expect(page.getByTestId('unread-count')).toHaveCount(0)
  await page
    .getByRole('group', { name: 'Status' })
    .getByRole('button', { name: 'Contacted' })
    .click()
  await expect(toast(page, 'Marked as contacted')).toBeVisible()
  await expect(
    page.getByRole('group', { name: 'Status' }).getByRole('button', { name: 'Contacted' }),
  ).toHaveAttribute('aria-pressed', 'true')
  // The shop's own notes.
  await page.getByRole('textbox', { name: 'Notes' }).fill('Quoted $95, picks up at 10.')
  await page.getByRole('button', { name: 'Save notes' }).click()
  await expect(toast(page, 'Notes saved')).toBeVisible()
  const [saved] = await (
    await service(
      request,
      'get',
      '/rest/v1/bouquet_requests?customer_email=eq.rosa@example.com&select=status,read_at,notes',
    )
  ).json()
  expect(saved.status).toBe('contacted')
  expect(saved.read_at).not.toBeNull()
  expect(saved.notes).toBe('Quoted $95, picks up at 10.')
  await nav(page, 'Requests').click()
  // Found by its reference; filtered by pick-up.
  await page.getByLabel('Find').fill(reference.toLowerCase())
  await expect(page.getByTestId('request-row')).toHaveCount(1)
  await page
    .getByRole('group', { name: 'Delivery or pick-up' })
    .getByRole('button', { name: 'Delivery', exact: true })
    .click()
  await expect(page.getByTestId('request-row')).toHaveCount(0)
  await page
    .getByRole('group', { name: 'Delivery or pick-up' })
    .getByRole('button', { name: 'Pick-up', exact: true })
    .click()
  await expect(page.getByTestId('request-row').filter({ hasText: 'Rosa Diaz' })).toContainText(
    'Pick-up',
  )
  await page.getByLabel('Find').fill('')
  await page.getByRole('button', { name: /^Contacted/ }).click()
  await expect(page.getByTestId('request-row').filter({ hasText: 'Rosa Diaz' })).toContainText(
    'Contacted',
  )
  await page.getByRole('button', { name: /^New/ }).click()
  await expect(page.getByText('No new requests')).toBeVisible()
})

test('staff: an admin adds and revokes administrators, and the last one cannot be revoked', async ({
  page,
}) => {
  const colleague = { email: `colleague-${Date.now()}@example.com`, password: 'tulips-in-spring' }
  supagate('users', 'create', colleague.email, colleague.password)
  await signIn(page, ADMIN.email, ADMIN.password)
  await expect(page).toHaveURL(/\/admin$/)
  await nav(page, 'Staff').click()
  await expect(page.getByRole('heading', { level: 1, name: 'Staff', exact: true })).toBeVisible()
  const rows = page.getByTestId('staff-row')
  await expect(rows.filter({ hasText: ADMIN.email })).toBeVisible()
  const before = await rows.count()
  await page.getByLabel('E-mail of the account').fill('nobody@example.com')
  await page.getByRole('button', { name: 'Make administrator' }).click()
  await expect(toast(page, 'Could not add the administrator')).toBeVisible()
  await expect(
    page.getByText('No account uses the e-mail nobody@example.com').first(),
  ).toBeVisible()
  await page.getByLabel('E-mail of the account').fill(colleague.email)
  await page.getByRole('button', { name: 'Make administrator' }).click()
  await expect(toast(page, 'Administrator added')).toBeVisible()
  await expect(rows).toHaveCount(before + 1)

  // The colleague signs in and manages the shop.
  const other = await page.context().browser()!.newPage({ baseURL: process.env.E2E_ADMIN_URL })
  await signIn(other, colleague.email, colleague.password)
  await expect(
    other.getByRole('heading', { level: 1, name: 'Dashboard', exact: true }),
  ).toBeVisible()
  await other.close()

  await page.getByRole('button', { name: `Revoke ${colleague.email}` }).click()
  await page.getByRole('button', { name: 'Revoke', exact: true }).click()
  await expect(toast(page, 'Administrator removed')).toBeVisible()
  await expect(rows).toHaveCount(before)

  // Where the requests are mailed.
  await page.getByLabel('E-mail for new requests').fill('orders@example.com')
  await page.getByRole('button', { name: 'Save' }).click()
  await expect(toast(page, 'New requests are e-mailed to orders@example.com')).toBeVisible()
  expect(shopAdmin('list')).not.toContain(colleague.email)
})

test('the owner sets the week in Settings: the site shows it, and the database refuses the day it closes', async ({
  page,
  request,
}) => {
  await signIn(page, ADMIN.email, ADMIN.password)
  await expect(page).toHaveURL(/\/admin$/)
  await gotoAndSettle(page, '/admin/settings')
  const hours = page.getByRole('form', { name: 'Opening hours' })
  await expect(hours.getByTestId('hours-Sunday')).toContainText('Closed')
  // Open on Sundays 11 to 3, closed on Mondays.
  await hours.getByRole('checkbox', { name: 'Open on Sundays' }).check()
  await hours.getByLabel('Sunday opens at').fill('11:00')
  await hours.getByLabel('Sunday closes at').fill('10:00')
  await hours.getByRole('button', { name: 'Save opening hours' }).click()
  await expect(hours.getByText('Closing time must be after opening time')).toBeVisible()
  await hours.getByLabel('Sunday closes at').fill('15:00')
  await hours.getByRole('checkbox', { name: 'Open on Mondays' }).uncheck()
  await hours.getByRole('button', { name: 'Save opening hours' }).click()
  await expect(toast(page, 'Opening hours saved')).toBeVisible()

  await gotoAndSettle(page, '/contact')
  await expect(page.getByTestId('opening-hours')).toContainText('MondayClosed')
  await expect(page.getByTestId('opening-hours')).toContainText('Sunday11:00 AM – 3:00 PM')
  await expect(page.getByTestId('footer-hours')).toContainText('MondayClosed')
  await gotoAndSettle(page, '/build-bouquet')
  await expect(page.locator('#date-note')).toContainText('We are closed on Mondays.')

  const monday = new Date(Date.parse(`${shopDay(1)}T12:00:00Z`))
  while (monday.getUTCDay() !== 1) monday.setUTCDate(monday.getUTCDate() + 1)
  const refused = await service(request, 'post', '/rest/v1/bouquet_requests', {
    size: 'good',
    colors: ['Pink'],
    design_style: 'modern',
    occasion: 'home',
    customer_name: 'Mo',
    customer_phone: '1',
    customer_email: 'monday@example.com',
    fulfilment: 'pickup',
    wanted_on: monday.toISOString().slice(0, 10),
  })
  expect(refused.status()).toBe(400)
  expect((await refused.json()).message).toBe(
    'We are closed on Mondays. Please choose another date.',
  )

  // Back to the demo week.
  await gotoAndSettle(page, '/admin/settings')
  await hours.getByRole('checkbox', { name: 'Open on Mondays' }).check()
  await hours.getByLabel('Monday opens at').fill('09:00')
  await hours.getByLabel('Monday closes at').fill('18:00')
  await hours.getByRole('checkbox', { name: 'Open on Sundays' }).uncheck()
  await hours.getByRole('button', { name: 'Save opening hours' }).click()
  await expect(toast(page, 'Opening hours saved')).toBeVisible()
})

for (const width of [1280, 375]) {
  test(`a product created while its answer is lost is saved once: the form keeps everything, says so, and Try again finishes it at ${width} px`, async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width, height: width === 375 ? 812 : 800 })
    await signIn(page, ADMIN.email, ADMIN.password)
    await expect(page).toHaveURL(/\/admin$/)
    await gotoAndSettle(page, '/admin/products/new')
    const sku = `LOST-${width}`
    await page.getByLabel('Name').fill(`Lost Answer Lilies ${width}`)
    await page.getByLabel('SKU').fill(sku)
    await page.getByLabel('Price ($)').fill('31')
    // The server saves the product, but its answer never arrives.
    let cut = true
    await page.route('**/rest/v1/rpc/save_product', async (route) => {
      if (!cut) return route.continue()
      await route.fetch()
      await route.abort('connectionreset')
    })
    await page.getByRole('button', { name: 'Create Product' }).click()
    const failure = page.getByRole('alert').filter({ hasText: 'The product was not saved' })
    await expect(failure).toBeFocused()
    await expect(failure).toContainText('The shop could not be reached')
    await expect(page.getByLabel('SKU')).toHaveValue(sku)
    cut = false
    await failure.getByRole('button', { name: 'Try again' }).click()
    await expect(toast(page, 'Product created successfully')).toBeVisible()
    await expect(page).toHaveURL(/\/admin\/products$/)
    expect(await restCount(request, `products?sku=eq.${sku}`)).toBe(1)
  })
}

/** The admin screens, and a text each shows once loaded. */
const adminScreens: [string, string][] = [
  ['/admin', 'Total Products'],
  ['/admin/products', 'Pastel Dream'],
  ['/admin/products/new', 'Create Product'],
  ['/admin/categories', 'Seasonal'],
  ['/admin/categories/new', 'Create Category'],
  ['/admin/import', 'CSV file'],
  ['/admin/requests', 'Requests'],
  ['/admin/staff', 'Administrator since'],
  ['/admin/settings', 'Closed days'],
]

async function axeClean(page: Page, what: string) {
  const axe = await new AxeBuilder({ page }).analyze()
  const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  expect(
    serious.map((v) => `${what} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
  ).toEqual([])
}

for (const width of [1280, 375]) {
  test(`every admin screen passes axe at ${width} px`, async ({ page, request }) => {
    // An axe scan of each of the admin's screens in turn: near 30 s on a slow 2-core machine.
    test.slow()
    await page.setViewportSize({ width, height: width === 375 ? 812 : 800 })
    await signIn(page, ADMIN.email, ADMIN.password)
    await expect(page).toHaveURL(/\/admin$/)
    // A single request's page too.
    const sent = await service(request, 'post', '/rest/v1/bouquet_requests', {
      size: 'good',
      colors: ['Pink'],
      design_style: 'modern',
      occasion: 'home',
      customer_name: `Axe ${width}`,
      customer_phone: '1',
      customer_email: `axe-${width}@example.com`,
      fulfilment: 'pickup',
      wanted_on: shopDay(),
    })
    expect(sent.status()).toBe(201)
    const [row] = await sent.json()
    for (const [path, text] of [...adminScreens, [`/admin/requests/${row.id}`, `Axe ${width}`]]) {
      await gotoAndSettle(page, path)
      await expect(page.getByText(text, { exact: false }).first()).toBeVisible()
      await axeClean(page, `${path} at ${width}`)
    }
  })
}

test.describe('on a phone', () => {
  test.use({ viewport: { width: 375, height: 812 } })

  test('list rows are cards with every action labelled and in reach', async ({ page }) => {
    await signIn(page, ADMIN.email, ADMIN.password)
    await expect(page).toHaveURL(/\/admin$/)
    for (const [path, name] of [
      ['/admin/products', 'Pastel Dream'],
      ['/admin/categories', 'Seasonal'],
    ]) {
      await gotoAndSettle(page, path)
      const card = page
        .getByTestId(path.endsWith('products') ? 'product-row' : 'category-row')
        .filter({ hasText: name })
        .first()
      for (const action of [`Hide ${name}`, `Delete ${name}`]) {
        const button = card.getByRole('button', { name: action })
        await expect(button).toBeVisible()
        const box = (await button.boundingBox())!
        expect(box.x + box.width).toBeLessThanOrEqual(375)
      }
      await expect(card.getByRole('link', { name: `Edit ${name}` })).toHaveText('Edit')
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        375,
      )
    }
  })
})
