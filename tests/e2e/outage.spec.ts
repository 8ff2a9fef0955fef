// Outages, on a phone's screen: the gateway that serves the site and its API is stopped under an
// open page and started again on the same port with the same data. A request sent meanwhile keeps
// everything typed and goes out with a retry; the admin says the server cannot be reached (never
// "not an administrator") and recovers by itself.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEMO_ADMIN, startGateway } from '../support/gateway.mjs'
import { png } from '../support/png.mjs'
import { expect, fillBouquet, test } from './fixtures'

test.describe.configure({ mode: 'serial' })

type Gateway = Awaited<ReturnType<typeof startGateway>>
let gw: Gateway
let dataDir: string
let port: number

test.beforeAll(async () => {
  dataDir = join(mkdtempSync(join(tmpdir(), 'supagate-outage-')), 'data')
  gw = await startGateway({ site: true, dataDir })
  port = Number(new URL(gw.url).port)
})

test.afterAll(async () => {
  await gw?.stop()
  rmSync(join(dataDir, '..'), { recursive: true, force: true })
})

/** Stops the gateway; `back()` starts it again where it was. */
async function outage() {
  await gw.stop()
  return async () => {
    gw = await startGateway({ site: true, dataDir, port })
  }
}

test('a request sent while the server is down keeps the page and everything typed; it goes out once the server is back', async ({
  page,
  consoleErrors,
}) => {
  await page.goto(`${gw.url}/build-bouquet`)
  await page.waitForLoadState('networkidle')
  await fillBouquet(page, { name: 'Storm Day', phone: '435-555-0150', email: 'storm@example.com' })
  const back = await outage()
  await page.getByRole('button', { name: 'Submit Bouquet Request' }).click()
  const failure = page.getByRole('alert').filter({ hasText: 'Your request was not sent' })
  await expect(failure).toBeVisible()
  await expect(failure).toContainText('The shop could not be reached')
  await expect(page.getByRole('heading', { level: 1, name: 'Build Your Bouquet' })).toBeVisible()
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('Storm Day')
  await expect(page.getByLabel('E-mail')).toHaveValue('storm@example.com')
  await expect(page.getByLabel('Reds')).toBeChecked()
  await back()
  await failure.getByRole('button', { name: 'Try again' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Request Received' })).toBeVisible()
  const key = gw.serviceKey
  const rows = await (
    await fetch(
      `${gw.url}/rest/v1/bouquet_requests?customer_email=eq.storm@example.com&select=id`,
      {
        headers: { apikey: key, authorization: `Bearer ${key}` },
      },
    )
  ).json()
  expect(rows).toHaveLength(1)
  // The only console errors are the refused connections of the outage.
  expect(
    consoleErrors.filter((e) => !/ERR_CONNECTION_REFUSED|Failed to fetch|WebSocket/i.test(e)),
  ).toEqual([])
})

test('the admin tells an unreachable server from "not an administrator", and recovers by itself', async ({
  page,
}) => {
  await page.goto(`${gw.url}/auth`)
  await page.getByRole('tab', { name: 'Sign In' }).click()
  await page.getByLabel('Email').fill(DEMO_ADMIN.email)
  await page.getByLabel('Password').fill(DEMO_ADMIN.password)
  await page.getByRole('button', { name: 'Sign In', exact: true }).click()
  await expect(page).toHaveURL(/\/admin$/)
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible()
  const back = await outage()
  // A page whose data is not loaded yet asks the server, which does not answer.
  await page.getByRole('button', { name: 'Toggle sidebar' }).click()
  await page
    .getByRole('navigation', { name: 'Admin' })
    .getByRole('link', { name: /^Staff/ })
    .click()
  const banner = page.getByRole('status').filter({ hasText: 'Can’t reach the server, retrying' })
  await expect(banner).toBeVisible({ timeout: 15_000 })
  await expect(page.getByText('Access Denied')).toHaveCount(0)
  await back()
  // Back: the page loads by itself, no reload, and the banner goes.
  await expect(page.getByTestId('staff-row').filter({ hasText: DEMO_ADMIN.email })).toBeVisible({
    timeout: 20_000,
  })
  await expect(banner).toHaveCount(0)
  await expect(page.getByText('Access Denied')).toHaveCount(0)
})

/** Signs in as the shop's demo administrator on `url`. */
async function signInDemo(page: import('@playwright/test').Page, url: string) {
  await page.goto(`${url}/auth`)
  await page.getByRole('tab', { name: 'Sign In' }).click()
  await page.getByLabel('Email').fill(DEMO_ADMIN.email)
  await page.getByLabel('Password').fill(DEMO_ADMIN.password)
  await page.getByRole('button', { name: 'Sign In', exact: true }).click()
  await expect(page).toHaveURL(/\/admin$/)
}

for (const width of [375, 1280]) {
  test(`a product created while the server is down: the form keeps it, says it was not saved, the banner shows; Try again once it is back makes one product at ${width} px`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height: width === 375 ? 812 : 800 })
    await signInDemo(page, gw.url)
    await page.goto(`${gw.url}/admin/products/new`)
    const sku = `STORM-${width}`
    await page.getByLabel('Name').fill(`Storm Peonies ${width}`)
    await page.getByLabel('SKU').fill(sku)
    await page.getByLabel('Price ($)').fill('44')
    const back = await outage()
    const started = Date.now()
    await page.getByRole('button', { name: 'Create Product' }).click()
    const failure = page.getByRole('alert').filter({ hasText: 'The product was not saved' })
    await expect(failure).toBeFocused()
    expect(Date.now() - started).toBeLessThan(5000)
    await expect(failure).toContainText('The shop could not be reached')
    await expect(page.getByLabel('Name')).toHaveValue(`Storm Peonies ${width}`)
    await expect(page.getByLabel('SKU')).toHaveValue(sku)
    await expect(
      page.getByRole('status').filter({ hasText: 'Can’t reach the server, retrying' }),
    ).toBeVisible({ timeout: 15_000 })
    await back()
    await failure.getByRole('button', { name: 'Try again' }).click()
    await expect(
      page.getByText('Product created successfully', { exact: true }).first(),
    ).toBeVisible()
    await expect(page).toHaveURL(/\/admin\/products$/)
    await expect(
      page.getByRole('status').filter({ hasText: 'Can’t reach the server' }),
    ).toHaveCount(0, { timeout: 20_000 })
    const key = gw.serviceKey
    const rows = await (
      await fetch(`${gw.url}/rest/v1/products?sku=eq.${sku}&select=id`, {
        headers: { apikey: key, authorization: `Bearer ${key}` },
      })
    ).json()
    expect(rows).toHaveLength(1)
  })
}

test.describe('without Deno on the machine', () => {
  let bare: Gateway
  let bareDir: string
  test.beforeAll(async () => {
    bareDir = mkdtempSync(join(tmpdir(), 'supagate-nodeno-'))
    bare = await startGateway({
      site: true,
      dataDir: join(bareDir, 'data'),
      env: { DENO_BIN: join(bareDir, 'no-deno-here') },
    })
  })
  test.afterAll(async () => {
    await bare?.stop()
    rmSync(bareDir, { recursive: true, force: true })
  })

  for (const width of [375, 1280]) {
    test(`a photo upload says plainly that uploads wait, and the rest of the admin works at ${width} px`, async ({
      page,
    }) => {
      await page.setViewportSize({ width, height: width === 375 ? 812 : 800 })
      await signInDemo(page, bare.url)
      await page.goto(`${bare.url}/admin/products/new`)
      await page.getByLabel('Main image: upload image').setInputFiles({
        name: 'fern.png',
        mimeType: 'image/png',
        buffer: png(16, 16, [90, 150, 90]),
      })
      await expect(
        page
          .getByText(
            'Photo uploads are not available on this server right now — the rest of the admin works.',
          )
          .first(),
      ).toBeVisible()
      await expect(page.getByText(/please check logs/)).toHaveCount(0)
      // The product is still saved, without a photo.
      await page.getByLabel('Name').fill(`No Deno Fern ${width}`)
      await page.getByLabel('Price ($)').fill('12')
      await page.getByRole('button', { name: 'Create Product' }).click()
      await expect(
        page.getByText('Product created successfully', { exact: true }).first(),
      ).toBeVisible()
    })
  }
})
