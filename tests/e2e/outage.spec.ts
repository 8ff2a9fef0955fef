// Outages, on a phone's screen: the gateway that serves the site and its API is stopped under an
// open page and started again on the same port with the same data. A request sent meanwhile keeps
// everything typed and goes out with a retry; the admin says the server cannot be reached (never
// "not an administrator") and recovers by itself.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEMO_ADMIN, startGateway } from '../support/gateway.mjs'
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

test('a request sent while the server is down keeps the page and everything typed; it goes out once the server is back', async ({ page, consoleErrors }) => {
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
  const rows = await (await fetch(`${gw.url}/rest/v1/bouquet_requests?customer_email=eq.storm@example.com&select=id`, {
    headers: { apikey: key, authorization: `Bearer ${key}` },
  })).json()
  expect(rows).toHaveLength(1)
  // The only console errors are the refused connections of the outage.
  expect(consoleErrors.filter((e) => !/ERR_CONNECTION_REFUSED|Failed to fetch|WebSocket/i.test(e))).toEqual([])
})

test('the admin tells an unreachable server from "not an administrator", and recovers by itself', async ({ page }) => {
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
  await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: /^Staff/ }).click()
  const banner = page.getByRole('status').filter({ hasText: 'Can’t reach the server, retrying' })
  await expect(banner).toBeVisible({ timeout: 15_000 })
  await expect(page.getByText('Access Denied')).toHaveCount(0)
  await back()
  // Back: the page loads by itself, no reload, and the banner goes.
  await expect(page.getByTestId('staff-row').filter({ hasText: DEMO_ADMIN.email })).toBeVisible({ timeout: 20_000 })
  await expect(banner).toHaveCount(0)
  await expect(page.getByText('Access Denied')).toHaveCount(0)
})
