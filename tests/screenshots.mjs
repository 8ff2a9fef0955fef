// Writes a screenshot of every page of the site and of each admin screen, 375 px and 1280 px
// wide, to docs/screenshots/, against a fresh gateway with the demo catalogue and a few bouquet
// requests sent the way the site sends them.
import { chromium } from '@playwright/test'
import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startGateway, DEMO_ADMIN } from './support/gateway.mjs'
import { shopDay } from './support/dates.mjs'

const out = resolve(dirname(fileURLToPath(import.meta.url)), '../docs/screenshots')
mkdirSync(out, { recursive: true })
for (const f of readdirSync(out)) if (f.endsWith('.png') || f.endsWith('.jpg')) rmSync(join(out, f))

const pages = [
  ['home', '/'],
  ['gifts-retail', '/gifts-retail'],
  ['weddings', '/weddings'],
  ['build-bouquet', '/build-bouquet'],
  ['contact', '/contact'],
  ['our-shop', '/our-shop'],
  ['about-us', '/about-us'],
  ['happy-hour', '/happy-hour'],
  ['terms-conditions', '/terms-conditions'],
  ['policies', '/policies'],
  ['wedding-consult', '/wedding-consult'],
  ['custom-designs', '/custom-designs'],
  ['occasion-seasonal', '/occasions/seasonal'],
  ['occasion-best-sellers', '/occasions/best-sellers'],
  ['occasion-everyday', '/occasions/everyday'],
  ['occasion-plants', '/occasions/plants'],
  ['occasion-dance-flowers', '/occasions/dance-flowers'],
  ['occasion-sympathy', '/occasions/sympathy'],
  ['occasion-memorial', '/occasions/memorial'],
  ['occasion-love-romance', '/occasions/love-romance'],
  ['not-found', '/no-such-page'],
  ['auth', '/auth'],
  ['flowers', '/flowers'],
  ['flowers-search', '/flowers?q=rose'],
]

const gw = await startGateway({ site: true })
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
})
const stub = async (context) => {
  await context.route('**/www.openstreetmap.org/**', (r) =>
    r.fulfill({
      contentType: 'text/html',
      body: '<body style="margin:0;background:#cfdccb;font:16px sans-serif;display:grid;place-items:center;height:100vh">Map of 86 N Main Street, Cedar City</body>',
    }),
  )
  await context.route('**/app.ecwid.com/**', (r) =>
    r.fulfill({
      contentType: 'application/javascript',
      body: 'window.xProductBrowser=function(){var id=[].slice.call(arguments).find(function(a){return a.indexOf("id=")===0}).slice(3);var e=document.getElementById(id);if(e){e.innerHTML="<div style=\\"border:1px dashed #b04f6a;padding:24px;border-radius:8px;text-align:center\\">Store checkout (third-party widget)</div>"}}',
    }),
  )
}
const shot = async (page, name, width) => {
  await page.waitForLoadState('networkidle')
  await page.waitForTimeout(250)
  await page.screenshot({ path: join(out, `${name}-${width}.png`), fullPage: true })
}
try {
  for (const width of [375, 1280]) {
    const context = await browser.newContext({
      viewport: { width, height: width < 500 ? 812 : 900 },
      deviceScaleFactor: 1,
    })
    await stub(context)
    const page = await context.newPage()
    for (const [name, path] of pages) {
      await page.goto(gw.url + path)
      await shot(page, name, width)
    }
    await page.goto(`${gw.url}/occasions/plants`)
    await page.getByRole('link', { name: 'View Details of Peace Lily' }).click()
    await page.getByTestId('store-widget').getByText('Store checkout').waitFor()
    await shot(page, 'product-detail', width)
    await page.goto(`${gw.url}/occasions/plants`)
    await page.getByRole('link', { name: 'View Details of Orchid Elegance' }).click()
    await page.getByTestId('order-by-phone').waitFor()
    await shot(page, 'product-coming-soon', width)
    // The form's problems listed at once, and a request's confirmation page.
    await page.goto(`${gw.url}/build-bouquet`)
    await page.getByRole('radio', { name: /^Delivery/ }).check()
    await page.getByRole('button', { name: 'Submit Bouquet Request' }).click()
    await page.getByText('Please check').waitFor()
    await shot(page, 'build-bouquet-errors', width)
    if (width === 1280) {
      await page.getByLabel('Better').check()
      await page.getByLabel('Pink').check()
      await page.getByLabel('Rustic').check()
      await page.getByLabel('Occasion').selectOption('birthday')
      await page.getByLabel('Delivery date').fill(shopDay(4))
      await page.getByLabel('Recipient name').fill('Mary Lee')
      await page.getByLabel('Delivery address').fill('12 Center St, Cedar City, UT 84720')
      await page.getByLabel('Card message (optional)').fill('Happy birthday, Mom!')
      await page.getByLabel('Name', { exact: true }).fill('Ann Lee')
      await page.getByLabel('Phone', { exact: true }).fill('(435) 555-0100')
      await page.getByLabel('E-mail').fill('ann@example.com')
      await page.getByRole('button', { name: 'Submit Bouquet Request' }).click()
      await page.getByRole('heading', { name: 'Request Received' }).waitFor()
      await shot(page, 'build-bouquet-sent', width)
    }
    if (width === 375) {
      await page.goto(`${gw.url}/`)
      await page.getByRole('button', { name: 'Open menu' }).click()
      await page.waitForTimeout(700)
      await page.screenshot({ path: join(out, 'mobile-menu-375.png') })
      await page.keyboard.press('Escape')
    }
    await context.close()
  }
  // Visitors' requests, as the form sends them (RLS lets anyone insert).
  const requests = [
    [
      'Rosa Diaz',
      '(435) 555-0199',
      'rosa@example.com',
      'get-well',
      'best',
      ['Yellow', 'Oranges'],
      'traditional',
      'For my neighbour, after her surgery.',
    ],
    [
      'Tom Becker',
      '(435) 555-0123',
      'tom@example.com',
      'love-romance',
      'better',
      ['Reds', 'Pink'],
      'modern',
      'Anniversary on Friday; a card saying "Still you".',
    ],
    [
      'Mei Tan',
      '(435) 555-0177',
      'mei@example.com',
      'baby',
      'good',
      ['Whites', 'Greens'],
      'rustic',
      null,
    ],
  ]
  for (const [name, phone, email, occasion, size, colors, style, special] of requests) {
    const res = await fetch(`${gw.url}/rest/v1/bouquet_requests`, {
      method: 'POST',
      headers: { apikey: gw.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        customer_name: name,
        customer_phone: phone,
        customer_email: email,
        occasion,
        size,
        colors,
        design_style: style,
        special_requests: special,
        fulfilment: 'pickup',
        wanted_on: shopDay(3),
      }),
    })
    if (!res.ok) throw new Error(`request not sent: ${res.status} ${await res.text()}`)
  }
  for (const width of [375, 1280]) {
    const context = await browser.newContext({
      viewport: { width, height: width < 500 ? 812 : 900 },
      deviceScaleFactor: 1,
    })
    await stub(context)
    const page = await context.newPage()
    await page.goto(`${gw.url}/auth`)
    await page.getByLabel('Email').fill(DEMO_ADMIN.email)
    await page.getByLabel('Password').fill(DEMO_ADMIN.password)
    await page.getByRole('button', { name: 'Sign In', exact: true }).click()
    await page.waitForURL(/\/admin$/)
    await page.getByTestId('count-total-products').filter({ hasText: /\d/ }).waitFor()
    await shot(page, 'admin-dashboard', width)
    for (const [name, path, ready] of [
      ['admin-products', '/admin/products', 'product-row'],
      ['admin-categories', '/admin/categories', 'category-row'],
      ['admin-requests', '/admin/requests', 'request-row'],
      ['admin-staff', '/admin/staff', 'staff-row'],
    ]) {
      await page.goto(gw.url + path)
      await page.getByTestId(ready).first().waitFor()
      await shot(page, name, width)
    }
    await page.goto(`${gw.url}/admin/settings`)
    await page
      .getByRole('list', { name: 'Closed days' })
      .getByText('Christmas Day')
      .first()
      .waitFor()
    await shot(page, 'admin-settings', width)
    await page.goto(`${gw.url}/admin/requests`)
    await page
      .getByTestId('request-row')
      .filter({ hasText: 'Tom Becker' })
      .getByRole('link')
      .first()
      .click()
    await page.getByRole('heading', { name: 'Tom Becker' }).waitFor()
    await shot(page, 'admin-request-detail', width)
    await page.goto(`${gw.url}/admin/products`)
    await page.getByRole('link', { name: 'Edit Pastel Dream' }).click()
    await page.getByLabel('Name').waitFor()
    await shot(page, 'admin-product-form', width)
    await page.goto(`${gw.url}/admin/categories/new`)
    await page.getByLabel('Name').fill('Prom Night')
    await shot(page, 'admin-category-form', width)
    await page.goto(`${gw.url}/admin/import`)
    await page.getByLabel('CSV file').setInputFiles({
      name: 'export.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        'product_internal_id,product_name,product_sku\n800001,Peace Lily,PLT-002\n800002,"Autumn Harvest, large",SEA-001\n800003,Ghost,NOPE-1\n,No id,PLT-001\n',
      ),
    })
    await page.getByRole('button', { name: 'Import' }).click()
    await page.getByTestId('import-summary').waitFor()
    await shot(page, 'admin-import', width)
    if (width === 375) {
      await page.getByRole('button', { name: 'Toggle sidebar' }).click()
      await page.waitForTimeout(400)
      await page.screenshot({ path: join(out, 'admin-menu-375.png') })
    }
    await context.close()
  }
  console.log(`screenshots written to ${out}`)
} finally {
  await browser.close()
  await gw.stop()
}
