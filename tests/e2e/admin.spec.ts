import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { gatewayBinary, repoRoot } from '../support/gateway.mjs'
import { png } from '../support/png.mjs'
import { expect, gotoAndSettle, test } from './fixtures'
import type { Page } from '@playwright/test'

// These tests change their gateway's catalogue in order, so they run one after another. The
// site tests run on a gateway of their own (playwright.config.ts), so they never see these edits.
test.describe.configure({ mode: 'serial' })

// The platform's user command, then the shop's own staff script, against this run's gateway.
const env = { ...process.env, RUST_LOG: 'error', SUPAGATE_DATA_DIR: process.env.E2E_ADMIN_DATA_DIR! }
const supagate = (...args: string[]) =>
  execFileSync(gatewayBinary, ['--workdir', repoRoot, ...args], { encoding: 'utf8', env })
const shopAdmin = (...args: string[]) =>
  execFileSync(join(repoRoot, 'scripts/shop-admin'), args, { encoding: 'utf8', env: { ...env, SUPAGATE_BIN: gatewayBinary } })

const ADMIN = { email: 'florist.admin@example.com', password: 'peonies-and-roses' }

async function signIn(page: Page, email: string, password: string) {
  await gotoAndSettle(page, '/auth')
  await page.getByRole('tab', { name: 'Sign In' }).click()
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign In', exact: true }).click()
}

const toast = (page: Page, text: string) => page.getByText(text, { exact: true }).first()

async function restCount(request: import('@playwright/test').APIRequestContext, query: string) {
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
  await expect(page.getByRole('alert').filter({ hasText: 'Password must be at least 6 characters' })).toBeVisible()
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
  await expect(toast(page, 'This email is already registered. Please sign in instead.')).toBeVisible()
})

test('wrong password shows the service message; /admin without a session goes to /auth', async ({ page }) => {
  await page.goto('/admin/products')
  await expect(page).toHaveURL(/\/auth$/)
  await signIn(page, 'admin@example.com', 'not-the-password')
  await expect(toast(page, 'Invalid login credentials')).toBeVisible()
})

test('an admin made with the CLI manages the catalogue', async ({ page, request }) => {
  expect(supagate('users', 'create', ADMIN.email, ADMIN.password)).toContain(`Created user ${ADMIN.email}`)
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
  await expect(page.getByTestId('count-categories')).toHaveText(String(await restCount(request, 'categories')))

  // Another admin's changes show without a reload (Realtime).
  const key = process.env.E2E_ADMIN_SERVICE_KEY!
  const rest = `${process.env.E2E_ADMIN_URL}/rest/v1/products`
  const headers = { apikey: key, authorization: `Bearer ${key}`, prefer: 'return=representation' }
  const created = await request.post(rest, { headers, data: { name: 'Live Tulips', base_price: 12, is_available: false } })
  expect(created.status()).toBe(201)
  const [live] = await created.json()
  await expect(page.getByTestId('count-total-products')).toHaveText(String(total + 1))
  await expect(page.getByTestId('count-unavailable-products')).toHaveText(String(total - available + 1))
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
  await page.getByLabel('Main image: upload image').setInputFiles({ name: 'fern.png', mimeType: 'image/png', buffer: png(16, 16, [90, 150, 90]) })
  await expect(toast(page, 'Image uploaded successfully')).toBeVisible()
  await expect(page.getByAltText('Preview of the chosen image')).toBeVisible()
  await page.getByRole('button', { name: 'Create Product' }).click()
  await expect(toast(page, 'Product created successfully')).toBeVisible()
  const row = page.getByTestId('product-row').filter({ hasText: 'Maidenhair Fern' })
  await expect(row).toContainText('$34.50')
  await expect(row).toContainText('Plants')

  // It shows on both occasion pages, with its uploaded image.
  for (const slug of ['plants', 'seasonal']) {
    await gotoAndSettle(page, `/occasions/${slug}`)
    await expect(page.getByRole('heading', { name: 'Maidenhair Fern' })).toBeVisible()
  }
  await expect(page.getByRole('img', { name: 'Maidenhair Fern' })).toHaveJSProperty('naturalWidth', 16)

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
  await page.getByRole('button', { name: 'Update Product' }).click()
  await expect(toast(page, 'Product updated successfully')).toBeVisible()
  await expect(page.getByTestId('product-row').filter({ hasText: 'Maidenhair Fern' })).toContainText('$36.00')
  await page.getByRole('button', { name: 'Delete Maidenhair Fern' }).click()
  await expect(page.getByRole('alertdialog')).toContainText('Are you sure you want to delete this product?')
  await page.getByRole('button', { name: 'Delete', exact: true }).click()
  await expect(toast(page, 'Product deleted')).toBeVisible()
  await expect(page.getByTestId('product-row').filter({ hasText: 'Maidenhair Fern' })).toHaveCount(0)

  // The session survives a reload; Ctrl+B collapses the sidebar and the cookie remembers it.
  await page.reload()
  await expect(page.getByRole('heading', { name: 'Products' })).toBeVisible()
  const sidebar = page.locator('aside[data-state]')
  await expect(sidebar).toHaveAttribute('data-state', 'expanded')
  await page.keyboard.press('Control+b')
  await expect(sidebar).toHaveAttribute('data-state', 'collapsed')
  expect((await page.context().cookies()).find((c) => c.name === 'sidebar_state')?.value).toBe('false')
  await page.reload()
  await expect(page.locator('aside[data-state]')).toHaveAttribute('data-state', 'collapsed')
  await expect(page.getByRole('heading', { name: 'Products' })).toBeVisible()
  await page.keyboard.press('Control+b')
  await expect(page.locator('aside[data-state]')).toHaveAttribute('data-state', 'expanded')
})

test('CSV import: found, quoted, not found and skipped rows', async ({ page, request }) => {
  await signIn(page, ADMIN.email, ADMIN.password)
  await expect(page).toHaveURL(/\/admin$/)
  await page.getByRole('link', { name: 'Import Products' }).click()
  await page.getByRole('button', { name: 'Import' }).click()
  await expect(toast(page, 'Please select a CSV file')).toBeVisible()
  await page.getByLabel('CSV file').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('sku,id\nA,1\n') })
  await page.getByRole('button', { name: 'Import' }).click()
  await expect(page.getByText(/missing required columns: product_sku, product_internal_id/).first()).toBeVisible()
  const csv = [
    '\uFEFFproduct_internal_id,product_name,product_sku',
    '800001,Peace Lily,PLT-002',
    '800002,"Autumn Harvest Bouquet, large",SEA-001',
    '800003,Ghost,NOPE-1',
    ',No id,PLT-001',
    '800005,No sku,',
  ].join('\r\n')
  await page.getByLabel('CSV file').setInputFiles({ name: 'export.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
  await page.getByRole('button', { name: 'Import' }).click()
  await expect(page.getByTestId('import-summary')).toHaveText('2 updated · 1 not found · 0 failed · 2 skipped')
  await expect(page.getByTestId('import-row').filter({ hasText: 'NOPE-1' })).toContainText('Product not found in database')
  await expect(toast(page, 'Successfully updated 2 product(s)')).toBeVisible()
  const key = process.env.E2E_ADMIN_SERVICE_KEY!
  const res = await request.get(`${process.env.E2E_ADMIN_URL}/rest/v1/products?select=sku,ecwid_product_id&sku=in.(PLT-002,SEA-001)&order=sku`, {
    headers: { apikey: key, authorization: `Bearer ${key}` },
  })
  expect(await res.json()).toEqual([
    { sku: 'PLT-002', ecwid_product_id: '800001' },
    { sku: 'SEA-001', ecwid_product_id: '800002' },
  ])
  await page.getByRole('button', { name: 'Sign Out' }).click()
  await expect(toast(page, 'Signed out successfully')).toBeVisible()
  await expect(page).toHaveURL(/\/auth$/)
})
