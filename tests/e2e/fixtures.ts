import { test as base, expect, type Page } from '@playwright/test'
import { shopDay } from '../support/dates.mjs'

/** A page whose third-party hosts are stubbed (or cut off) and whose console errors are collected. */
export const test = base.extend<{ consoleErrors: string[]; storeAvailable: boolean }>({
  storeAvailable: [true, { option: true }],
  consoleErrors: async ({ page }, use) => {
    const errors: string[] = []
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text())
    })
    page.on('pageerror', (e) => errors.push(e.message))
    await use(errors)
  },
  page: async ({ page, storeAvailable }, use) => {
    await page.route('**/www.openstreetmap.org/**', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: '<html><body style="background:#cfdccb">map</body></html>',
      }),
    )
    await page.route('**/app.ecwid.com/**', (route) =>
      storeAvailable
        ? route.fulfill({
            contentType: 'application/javascript',
            body: `window.xProductBrowser = function () {
              var args = Array.prototype.slice.call(arguments);
              var id = (args.find(function (a) { return a.indexOf('id=') === 0; }) || '').slice(3);
              var el = document.getElementById(id);
              if (el) { el.setAttribute('data-settings', args.join('|')); el.textContent = 'Store widget ready'; }
            };`,
          })
        : route.abort(),
    )
    await use(page)
  },
})

export { expect }

export async function gotoAndSettle(page: Page, path: string) {
  await page.goto(path)
  await page.waitForLoadState('networkidle')
}

export { shopDay }

/** Fills the bouquet form with a complete pick-up request (the visitor's own details given). */
export async function fillBouquet(
  page: Page,
  who: { name: string; phone: string; email: string },
  day = shopDay(),
) {
  await page.getByLabel('Good').check()
  await page.getByLabel('Reds').check()
  await page.getByLabel('Modern').check()
  await page.getByLabel('Occasion').selectOption('home')
  await page.getByRole('radio', { name: /^Pick-up/ }).check()
  await page.getByLabel('Pick-up date').fill(day)
  await page.getByLabel('Name', { exact: true }).fill(who.name)
  await page.getByLabel('Phone', { exact: true }).fill(who.phone)
  await page.getByLabel('E-mail').fill(who.email)
}
