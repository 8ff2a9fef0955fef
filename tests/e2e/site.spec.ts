import AxeBuilder from '@axe-core/playwright'
import type { APIRequestContext } from '@playwright/test'
import { expect, fillBouquet, gotoAndSettle, shopDay, test } from './fixtures'
import { nextSunday } from '../support/dates.mjs'

/** A REST read with the site gateway's service key (past RLS). */
function serviceGet(request: APIRequestContext, query: string) {
  const key = process.env.E2E_SITE_SERVICE_KEY!
  return request.get(`${process.env.E2E_SITE_URL}/rest/v1/${query}`, {
    headers: { apikey: key, authorization: `Bearer ${key}` },
  })
}

const routes: [string, string][] = [
  ['/', 'Floral Moments That Speak From The Heart'],
  ['/gifts-retail', 'Coming Soon'],
  ['/weddings', 'Start With a Consult'],
  ['/build-bouquet', 'Submit Bouquet Request'],
  [
    '/contact',
    "We'd love to hear from you. Get in touch with any questions about our flowers or services.",
  ],
  ['/our-shop', 'Meet our Florist'],
  ['/about-us', 'About Us'],
  ['/happy-hour', '2:00 PM to closing'],
  ['/terms-conditions', '7. Contact Information'],
  ['/policies', 'Flower Care Policy'],
  ['/wedding-consult', 'Wedding Consult'],
  ['/custom-designs', 'Custom Designs'],
  ['/occasions/seasonal', 'Autumn Harvest Bouquet'],
  ['/occasions/best-sellers', 'Pastel Dream'],
  ['/occasions/everyday', 'Sunshine Daisies'],
  ['/occasions/plants', 'Peace Lily'],
  ['/occasions/dance-flowers', 'Please Call the Shop'],
  ['/occasions/sympathy', 'Please Call the Shop'],
  ['/occasions/memorial', 'Please Call the Shop'],
  ['/occasions/love-romance', 'Please Call the Shop'],
  ['/flowers', 'Red Rose Romance'],
  ['/auth', 'Admin Access'],
  ['/build-bouquet/sent/ABCD1234', 'ABCD1234'],
  ['/no/such/page', 'Oops! Page not found'],
]

for (const [path, text] of routes) {
  test(`${path} passes axe at 375 px`, async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 812 })
    await gotoAndSettle(page, path)
    await expect(page.getByText(text, { exact: false }).first()).toBeVisible()
    const axe = await new AxeBuilder({ page }).analyze()
    const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    expect(
      serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    ).toEqual([])
  })
  test(`${path} renders without console errors and passes axe`, async ({ page, consoleErrors }) => {
    await gotoAndSettle(page, path)
    await expect(page.getByText(text, { exact: false }).first()).toBeVisible()
    const axe = await new AxeBuilder({ page }).analyze()
    const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    expect(
      serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    ).toEqual([])
    // A path the app does not know answers 404, which the browser reports for the page itself.
    const expected = path === '/no/such/page' ? /status of 404/ : null
    expect(consoleErrors.filter((e) => !expected?.test(e))).toEqual([])
  })
}

test('the home page: hero, cards, team button, footer', async ({ page }) => {
  await gotoAndSettle(page, '/')
  await expect(page.getByText('Care you can see. Service you can feel.')).toBeVisible()
  await expect(page.getByRole('link', { name: 'SHOP NOW: Shop Bouquets' })).toHaveAttribute(
    'href',
    '/build-bouquet',
  )
  await expect(page.getByRole('link', { name: 'SHOP NOW: Wedding Services' })).toHaveAttribute(
    'href',
    '/weddings',
  )
  await expect(page.getByRole('link', { name: 'SHOP NOW: Sympathy Flowers' })).toHaveAttribute(
    'href',
    '/occasions/sympathy',
  )
  await expect(page.getByRole('heading', { name: 'Make Your Blooms Last Longer' })).toBeVisible()
  await page.getByRole('link', { name: 'MEET THE TEAM' }).click()
  await expect(page).toHaveURL(/\/about-us$/)
  await expect(page.getByText('© 2025')).toBeVisible()
  for (const name of ['Navigation', 'Shop & Services', 'Quick Links']) {
    await expect(page.getByRole('navigation', { name })).toBeVisible()
  }
  await expect(page.getByRole('link', { name: 'Monday-Friday Specials' })).toHaveAttribute(
    'href',
    '/happy-hour',
  )
  await expect(page.getByRole('link', { name: 'Admin Login' })).toHaveAttribute('href', '/auth')
})

for (const width of [1280, 375]) {
  test(`findable: the featured products on the home page, a search over every available product at ${width} px`, async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width, height: width === 375 ? 812 : 800 })
    const key = process.env.E2E_SITE_SERVICE_KEY!
    const headers = { apikey: key, authorization: `Bearer ${key}` }
    const base = process.env.E2E_SITE_URL!
    const featured = await (
      await request.get(
        `${base}/rest/v1/products?select=name&is_featured=eq.true&is_available=eq.true&order=name`,
        { headers },
      )
    ).json()
    expect(featured.length).toBeGreaterThan(0)
    await gotoAndSettle(page, '/')
    const section = page.getByRole('region', { name: 'Featured Flowers' })
    for (const { name } of featured)
      await expect(section.getByRole('heading', { name })).toBeVisible()
    await section.getByRole('link', { name: 'See all flowers' }).click()
    await expect(page).toHaveURL(/\/flowers$/)
    // Every available product is here, the hidden ones are not.
    const all = await (
      await request.get(`${base}/rest/v1/products?select=name,is_available`, { headers })
    ).json()
    const grid = page.getByTestId('product-grid')
    await expect(grid.getByRole('heading', { level: 2 })).toHaveCount(
      all.filter((p: { is_available: boolean }) => p.is_available).length,
    )
    // Products only the phone-only occasion pages had are found.
    await page.getByRole('searchbox', { name: 'Search flowers' }).fill('rose')
    await expect(grid.getByRole('heading', { name: 'Red Rose Romance' })).toBeVisible()
    await expect(grid.getByRole('heading', { name: 'Peace Lily' })).toHaveCount(0)
    await expect(page).toHaveURL(/\?q=rose$/)
    await page.getByRole('searchbox', { name: 'Search flowers' }).fill('orchid elegance')
    await expect(grid.getByRole('heading', { level: 2 })).toHaveCount(1)
    await page.getByRole('searchbox', { name: 'Search flowers' }).fill('tulipz')
    await expect(page.getByText('Nothing matches “tulipz”')).toBeVisible()
    // The search is one click away on every page.
    await gotoAndSettle(page, '/contact')
    await page.getByRole('link', { name: 'Search flowers' }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'All Flowers & Gifts' })).toBeVisible()
  })
}

test('the map: shown when its host answers; an address card with a link when it is blocked', async ({
  page,
}) => {
  await gotoAndSettle(page, '/contact')
  await expect(page.frameLocator('iframe[title^="Map showing"]').getByText('map')).toBeVisible()
  await page.route('**/www.openstreetmap.org/**', (route) => route.abort())
  await gotoAndSettle(page, '/contact')
  const card = page.getByTestId('map-fallback')
  await expect(card).toContainText('The map cannot be shown right now.')
  await expect(card.getByRole('link', { name: 'Open the map on OpenStreetMap' })).toHaveAttribute(
    'href',
    /openstreetmap\.org/,
  )
  await expect(page.locator('iframe[title^="Map showing"]')).toHaveCount(0)
})

test('the footer does not jump while /build-bouquet loads (layout shift below 0.1)', async ({
  page,
}) => {
  await page.addInitScript(() => {
    ;(window as unknown as { cls: number }).cls = 0
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as (PerformanceEntry & {
        value: number
        hadRecentInput: boolean
      })[]) {
        if (!e.hadRecentInput) (window as unknown as { cls: number }).cls += e.value
      }
    }).observe({ type: 'layout-shift', buffered: true })
  })
  await gotoAndSettle(page, '/build-bouquet')
  await expect(page.getByRole('button', { name: 'Submit Bouquet Request' })).toBeVisible()
  const cls = await page.evaluate(() => (window as unknown as { cls: number }).cls)
  expect(cls).toBeLessThan(0.1)
})

test('the open Occasions dropdown passes axe', async ({ page }) => {
  await gotoAndSettle(page, '/')
  await page.getByRole('button', { name: 'Occasions' }).click()
  await expect(page.getByRole('link', { name: 'Plants' }).first()).toBeVisible()
  const axe = await new AxeBuilder({ page }).analyze()
  const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  expect(
    serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
  ).toEqual([])
})

test('desktop navigation and the occasions dropdown', async ({ page }) => {
  await gotoAndSettle(page, '/')
  await page.getByRole('button', { name: 'Occasions' }).hover()
  const menu = page.locator('[data-state="open"] a')
  await expect(page.getByRole('link', { name: 'Sympathy / Memorial' })).toBeVisible()
  expect(await menu.count()).toBeGreaterThanOrEqual(7)
  await page.getByRole('link', { name: 'Best Sellers' }).click()
  await expect(page).toHaveURL(/\/occasions\/best-sellers$/)
  await expect(page.getByRole('heading', { name: 'Best Sellers', level: 1 })).toBeVisible()
})

test('occasion page → product → detail with the store widget', async ({
  page,
  consoleErrors,
  request,
}) => {
  // The admin tests may change store ids (CSV import), so read the current one.
  const key = process.env.E2E_SITE_SERVICE_KEY!
  const res = await request.get(
    `${process.env.E2E_SITE_URL}/rest/v1/products?select=ecwid_product_id&sku=eq.PLT-002`,
    {
      headers: { apikey: key, authorization: `Bearer ${key}` },
    },
  )
  const [{ ecwid_product_id: storeId }] = await res.json()
  await gotoAndSettle(page, '/occasions/plants')
  const cards = page.getByTestId('product-grid').locator('article')
  await expect(cards).toHaveCount(4)
  await expect(cards.first()).toContainText('$85.00')
  await page.getByRole('link', { name: 'View Details of Peace Lily' }).click()
  await expect(page).toHaveURL(/\/product\//)
  await expect(page.getByRole('heading', { name: 'Peace Lily' })).toBeVisible()
  const widget = page.getByTestId('store-widget')
  await expect(widget).toHaveText('Store widget ready')
  const settings = await widget.getAttribute('data-settings')
  expect(settings).toContain('views=grid(20,3) list(60) table(60)')
  expect(settings).toContain('categoriesPerRow=3')
  expect(settings).toContain(`defaultProductId=${storeId}`)
  await page.getByRole('button', { name: 'Back' }).click()
  await expect(page).toHaveURL(/\/occasions\/plants$/)
  expect(consoleErrors).toEqual([])
})

test('a product without a store id says details are coming, and how to order it', async ({
  page,
}) => {
  await gotoAndSettle(page, '/occasions/plants')
  await page.getByRole('link', { name: 'View Details of Orchid Elegance' }).click()
  const order = page.getByTestId('order-by-phone')
  await expect(order.getByText('Product Details Coming Soon')).toBeVisible()
  await expect(order.getByRole('link', { name: /Call \(435\) 555-0148/ })).toHaveAttribute(
    'href',
    'tel:+14355550148',
  )
  await expect(order.getByRole('link', { name: 'E-mail us' })).toHaveAttribute(
    'href',
    /^mailto:hello@bluebellandsage\.com\?subject=Order%3A%20Orchid%20Elegance$/,
  )
  await expect(order.getByRole('link', { name: 'build a bouquet of your own' })).toHaveAttribute(
    'href',
    '/build-bouquet',
  )
})

test('a product page opened from a shared link goes Back to the shop, not off the site', async ({
  page,
  request,
}) => {
  const [{ id }] = await (await serviceGet(request, 'products?select=id&sku=eq.PLT-002')).json()
  await page.goto(`/product/${id}`)
  await expect(page.getByRole('heading', { name: 'Peace Lily' })).toBeVisible()
  await page.getByRole('button', { name: 'Back' }).click()
  await expect(page).toHaveURL(new RegExp(`^${process.env.E2E_SITE_URL}/$`))
  await expect(
    page.getByRole('heading', { name: 'Floral Moments That Speak From The Heart' }),
  ).toBeVisible()
})

test('each demo product has a drawing of its own that matches its name', async ({ request }) => {
  const products: { name: string; description: string; main_image_url: string }[] = await (
    await serviceGet(request, 'products?select=name,description,main_image_url&order=name')
  ).json()
  expect(products).toHaveLength(24)
  const titles = new Map<string, string>()
  for (const p of products) {
    expect(p.main_image_url, p.name).toMatch(/^\/demo\/products\/[a-z-]+\.svg$/)
    const svg = await (await request.get(`${process.env.E2E_SITE_URL}${p.main_image_url}`)).text()
    const title = /<title[^>]*>([^<]+)<\/title>/.exec(svg)?.[1] ?? ''
    titles.set(p.name, title)
    // The flower or piece the name promises is the one drawn.
    for (const kind of [
      'tulip',
      'rose',
      'sunflower',
      'succulent',
      'orchid',
      'wreath',
      'corsage',
      'boutonniere',
      'lily',
      'fig',
      'dais',
    ]) {
      if (p.name.toLowerCase().includes(kind))
        expect(title.toLowerCase(), `${p.name}: ${title}`).toContain(kind)
    }
  }
  expect(new Set(titles.values()).size).toBe(24)
  expect(new Set(products.map((p) => p.main_image_url)).size).toBe(24)
})

test.describe('when the store is unreachable', () => {
  test.use({ storeAvailable: false })
  test('the product page still shows the product and says checkout is unavailable', async ({
    page,
  }) => {
    await gotoAndSettle(page, '/occasions/plants')
    await page.getByRole('link', { name: 'View Details of Peace Lily' }).click()
    await expect(page.getByRole('heading', { name: 'Peace Lily' })).toBeVisible()
    await expect(page.getByText('The online checkout is unavailable right now.')).toBeVisible()
  })
})

test('the home page sends at most 120 KB of script as transferred, its featured products included', async ({
  page,
}) => {
  // What the browser received (compressed, as the gateway sent it), every script of the page.
  const sizes: Promise<number>[] = []
  const files: string[] = []
  page.on('requestfinished', (r) => {
    if (r.resourceType() !== 'script') return
    files.push(new URL(r.url()).pathname)
    sizes.push(r.sizes().then((s) => s.responseBodySize))
  })
  await gotoAndSettle(page, '/')
  await expect(page.getByRole('region', { name: 'Featured Flowers' })).toBeVisible()
  await page.waitForLoadState('networkidle')
  const lcp = await page.evaluate(
    () =>
      new Promise<number>((res) => {
        new PerformanceObserver((l) => {
          const e = l.getEntries()
          res(e[e.length - 1].startTime)
        }).observe({ type: 'largest-contentful-paint', buffered: true })
      }),
  )
  const kb = (await Promise.all(sizes)).reduce((a, b) => a + b, 0) / 1024
  console.log(
    `home page: ${kb.toFixed(1)} KB of script in ${files.length} files, LCP ${Math.round(lcp)} ms: ${files.join(' ')}`,
  )
  expect(kb).toBeLessThanOrEqual(120)
  // The one supabase client is for the other pages.
  expect(files.filter((f) => /supabase|QueryProvider/.test(f))).toEqual([])
})

for (const width of [1280, 375])
  test(`a hidden or missing product is absent from lists, answers 404 and shows not-found at ${width} px`, async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width, height: width === 375 ? 812 : 800 })
    const res = await request.get(
      `${process.env.E2E_SITE_URL}/rest/v1/products?select=id&sku=eq.SEA-004`,
      {
        headers: {
          apikey: process.env.E2E_SITE_SERVICE_KEY!,
          authorization: `Bearer ${process.env.E2E_SITE_SERVICE_KEY}`,
        },
      },
    )
    const [{ id }] = await res.json()
    await gotoAndSettle(page, '/occasions/seasonal')
    await expect(page.getByText('Autumn Harvest Bouquet')).toBeVisible()
    await expect(page.getByText('Summer Sunflower Bundle')).toHaveCount(0)
    const logs: string[] = []
    page.on('console', (m) => logs.push(m.text()))
    const visit = await page.goto(`/product/${id}`)
    // The server says so too: a real 404, with the app that shows its not-found page.
    expect(visit!.status()).toBe(404)
    await expect(page).toHaveURL(/\/not-found$/)
    await expect(page.getByText('Oops! Page not found')).toBeVisible()
    // The log names the path that was asked for, not /not-found.
    expect(logs.some((l) => l.includes(`/product/${id}`))).toBe(true)
    // One that never existed: the same.
    const missing = await page.goto('/product/6b0c5a9e-1d2f-4e3a-8b7c-0d9e8f7a6b5c')
    expect(missing!.status()).toBe(404)
    await expect(page.getByText('Oops! Page not found')).toBeVisible()
  })

test('search engines and sharing: real 404s, robots.txt and a sitemap from the catalogue, Open Graph, the shop as a Florist, icons', async ({
  page,
  request,
}) => {
  const base = process.env.E2E_SITE_URL!
  // Paths the app does not know answer 404 (with its not-found page); its pages answer 200.
  // A product page answers 404 unless the visitor can read that product (frontend/public/_exists).
  const [shown] = await (
    await request.get(`${base}/rest/v1/products?select=id&is_available=eq.true&limit=1`, {
      headers: {
        apikey: process.env.E2E_SITE_SERVICE_KEY!,
        authorization: `Bearer ${process.env.E2E_SITE_SERVICE_KEY}`,
      },
    })
  ).json()
  for (const [path, status] of [
    ['/', 200],
    ['/occasions/plants', 200],
    ['/build-bouquet/sent/ABCD1234', 200],
    ['/admin/products', 200],
    [`/product/${shown.id}`, 200],
    ['/product/00000000-0000-4000-8000-000000000000', 404],
    ['/product/not-a-product', 404],
    ['/no/such/page', 404],
    ['/occasions/weddings', 404],
    ['/not-found', 404],
  ] as const) {
    const res = await request.get(`${base}${path}`)
    expect(res.status(), path).toBe(status)
    expect(await res.text(), path).toContain('<div id="root">')
  }
  const robots = await request.get(`${base}/robots.txt`)
  expect(robots.status()).toBe(200)
  // The site's address is the one this gateway runs at (configuration, not the seed).
  expect(await robots.text()).toMatch(/^User-agent: \*\nDisallow: \/admin\n/)
  expect(await robots.text()).toContain(`Sitemap: ${base}/sitemap.xml`)
  const sitemap = await request.get(`${base}/sitemap.xml`)
  expect(sitemap.headers()['content-type']).toContain('application/xml')
  const xml = await sitemap.text()
  expect(xml).toContain(`<loc>${base}/occasions/plants</loc>`)
  // Every available product, and no hidden one.
  const key = process.env.E2E_SITE_SERVICE_KEY!
  const products = await (
    await request.get(`${base}/rest/v1/products?select=id,is_available`, {
      headers: { apikey: key, authorization: `Bearer ${key}` },
    })
  ).json()
  for (const p of products as { id: string; is_available: boolean }[]) {
    expect(xml.includes(`/product/${p.id}<`), p.id).toBe(p.is_available)
  }
  for (const icon of [
    '/favicon.ico',
    '/apple-touch-icon.png',
    '/site.webmanifest',
    '/og-image.png',
  ]) {
    expect((await request.get(`${base}${icon}`)).status(), icon).toBe(200)
  }
  await gotoAndSettle(page, '/happy-hour')
  await expect(page).toHaveTitle('Happy Hour | Bluebell & Sage Flowers')
  await expect(page.locator('meta[property="og:title"]')).toHaveAttribute(
    'content',
    'Happy Hour | Bluebell & Sage Flowers',
  )
  await expect(page.locator('meta[property="og:url"]')).toHaveAttribute(
    'content',
    `${base}/happy-hour`,
  )
  await expect(page.locator('meta[property="og:image"]')).toHaveAttribute(
    'content',
    `${base}/og-image.png`,
  )
  const data = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent())!)
  expect(data).toMatchObject({
    '@type': 'Florist',
    name: 'Bluebell & Sage Flowers',
    telephone: '+1-435-555-0148',
    address: { addressLocality: 'Cedar City' },
  })
})

test('the not-found page logs the path and links home', async ({ page }) => {
  const logs: string[] = []
  page.on('console', (m) => logs.push(m.text()))
  await gotoAndSettle(page, '/definitely-missing')
  expect(logs.some((l) => l.includes('/definitely-missing'))).toBe(true)
  await page.getByRole('link', { name: 'Return to Home' }).click()
  await expect(page).toHaveURL(/\/$/)
})

for (const width of [1280, 375]) {
  test(`bouquet form: every problem listed and focused at once; a delivery sent; the confirmation page; the request reaches the shop at ${width} px`, async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width, height: width === 375 ? 812 : 800 })
    await gotoAndSettle(page, '/build-bouquet')
    await page.getByRole('radio', { name: /^Delivery/ }).check()
    await page.getByRole('button', { name: 'Submit Bouquet Request' }).click()
    const summary = page.getByRole('alert').filter({ hasText: 'Please check' })
    await expect(summary).toBeFocused()
    for (const [label, msg] of [
      ['Size', 'Please select a size'],
      ['Colors', 'Please select at least one color'],
      ['Design style', 'Please select a design style'],
      ['Occasion', 'Please select an occasion'],
      ['Date', 'Please choose a date'],
      ['Recipient name', 'Recipient name is required'],
      ['Delivery address', 'Delivery address is required'],
      ['Name', 'Name is required'],
      ['Phone', 'Phone number is required'],
      ['E-mail', 'Valid email is required'],
    ]) {
      await expect(
        summary.getByRole('link', { name: `${label}: ${msg}`, exact: true }),
      ).toBeVisible()
      await expect(page.locator('form').getByText(msg, { exact: true }).last()).toBeVisible()
    }
    // Every field with a problem says so to assistive technology.
    for (const field of [
      'Occasion',
      'Delivery date',
      'Recipient name',
      'Delivery address',
      'Name',
      'E-mail',
    ]) {
      await expect(page.getByLabel(field, { exact: true })).toHaveAttribute('aria-invalid', 'true')
    }
    await expect(page.getByRole('radiogroup', { name: 'Size' })).toHaveAttribute(
      'aria-invalid',
      'true',
    )
    await expect(page.getByLabel('Pink')).toHaveAttribute('aria-invalid', 'true')
    // A link of the summary takes the focus to its field.
    await summary.getByRole('link', { name: /Recipient name/ }).click()
    await expect(page.getByLabel('Recipient name')).toBeFocused()

    // The sizes show their prices; a closed day and a past day are refused with the shop's words.
    await expect(page.getByText('Better · $65.00')).toBeVisible()
    await expect(page.getByText(/We are closed on .*\(Christmas Day\)/)).toBeVisible()
    await page.getByLabel('Delivery date').fill(shopDay(-1))
    await page.getByRole('button', { name: 'Submit Bouquet Request' }).click()
    await expect(
      summary.getByRole('link', { name: 'Date: Please choose today or a later date' }),
    ).toBeVisible()

    await page.getByLabel('Better').check()
    await page.getByLabel('Pink').check()
    await page.getByLabel('Whites').check()
    await page.getByLabel('Rustic').check()
    await page.getByLabel('Occasion').selectOption('birthday')
    await page.getByLabel('Named arrangement (optional)').selectOption('Daisy')
    await page.getByLabel('Special requests (optional)').fill('Peonies if you have them.')
    const day = shopDay(4)
    await page.getByLabel('Delivery date').fill(day)
    await page.getByLabel('Recipient name').fill('Mary Lee')
    await page.getByLabel('Recipient phone (optional)').fill('435-555-0177')
    await page.getByLabel('Delivery address').fill('12 Center St, Cedar City, UT 84720')
    await page.getByLabel('Card message (optional)').fill('Happy birthday, Mom!')
    await page.getByLabel('Name', { exact: true }).fill('Ann Lee')
    await page.getByLabel('Phone', { exact: true }).fill('435-555-0100')
    await page.getByLabel('E-mail').fill(`ann-${width}@example.com`)
    await page.getByRole('button', { name: 'Submit Bouquet Request' }).click()
    await expect(page.getByRole('button', { name: 'Submitting...' })).toBeVisible()
    // A page the customer can keep: the reference and what was asked for.
    await expect(page.getByRole('heading', { level: 1, name: 'Request Received' })).toBeVisible()
    await expect(page).toHaveURL(/\/build-bouquet\/sent\/[0-9A-F]{8}$/)
    const reference = page.url().split('/').pop()!
    await expect(page.getByText(reference)).toBeVisible()
    await expect(page.getByText('Mary Lee, 435-555-0177')).toBeVisible()
    await expect(page.getByText('Happy birthday, Mom!')).toBeVisible()
    await expect(page.getByText('Better (premium) · from $65.00')).toBeVisible()
    await page.reload()
    await expect(page.getByText('12 Center St, Cedar City, UT 84720')).toBeVisible()
    // It reached the shop, field by field.
    const rows = await (
      await serviceGet(
        request,
        `bouquet_requests?customer_email=eq.ann-${width}@example.com&select=*`,
      )
    ).json()
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      size: 'better',
      colors: ['Pink', 'Whites'],
      design_style: 'rustic',
      occasion: 'birthday',
      named_arrangement: 'Daisy',
      special_requests: 'Peonies if you have them.',
      customer_name: 'Ann Lee',
      customer_phone: '435-555-0100',
      status: 'new',
      read_at: null,
      fulfilment: 'delivery',
      wanted_on: day,
      recipient_name: 'Mary Lee',
      recipient_phone: '435-555-0177',
      delivery_address: '12 Center St, Cedar City, UT 84720',
      card_message: 'Happy birthday, Mom!',
      reference,
      size_price: 65,
    })
    const axe = await new AxeBuilder({ page }).analyze()
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual(
      [],
    )
  })
}

for (const width of [1280, 375]) {
  test(`a send that fails keeps everything typed, offers a retry and the phone; a retry after a lost answer sends it once at ${width} px`, async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width, height: width === 375 ? 812 : 800 })
    await gotoAndSettle(page, '/build-bouquet')
    await fillBouquet(page, {
      name: 'Lost Answer',
      phone: '435-555-0123',
      email: `lost-${width}@example.com`,
    })
    // The shop gets the request, but its answer never arrives.
    let cut = true
    await page.route('**/rest/v1/bouquet_requests', async (route) => {
      if (!cut) return route.continue()
      await route.fetch()
      await route.abort('connectionreset')
    })
    await page.getByRole('button', { name: 'Submit Bouquet Request' }).click()
    const failure = page.getByRole('alert').filter({ hasText: 'Your request was not sent' })
    await expect(failure).toBeFocused()
    await expect(failure).toContainText('The shop could not be reached')
    await expect(failure.getByRole('link', { name: /Call \(435\) 555-0148/ })).toHaveAttribute(
      'href',
      'tel:+14355550148',
    )
    await expect(page.getByLabel('Name', { exact: true })).toHaveValue('Lost Answer')
    await expect(page.getByLabel('Reds')).toBeChecked()
    cut = false
    await failure.getByRole('button', { name: 'Try again' }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Request Received' })).toBeVisible()
    const rows = await (
      await serviceGet(
        request,
        `bouquet_requests?customer_email=eq.lost-${width}@example.com&select=id`,
      )
    ).json()
    expect(rows).toHaveLength(1)
  })
}

test('a bot that fills the hidden field is told it worked, and nothing is stored', async ({
  page,
  request,
}) => {
  await gotoAndSettle(page, '/build-bouquet')
  await expect(page.getByLabel('Leave this field empty')).not.toBeInViewport()
  await fillBouquet(page, { name: 'Spam Bot', phone: '000', email: 'bot@example.com' })
  await page.getByLabel('Leave this field empty').fill('http://spam.example')
  await page.getByRole('button', { name: 'Submit Bouquet Request' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Request Received' })).toBeVisible()
  expect(
    await (await serviceGet(request, 'bouquet_requests?customer_email=eq.bot@example.com')).json(),
  ).toEqual([])
})

test('weddings tabs', async ({ page }) => {
  await gotoAndSettle(page, '/weddings')
  await expect(page.getByRole('tab', { name: 'Wedding Consult' })).toHaveAttribute(
    'aria-selected',
    'true',
  )
  await page.getByRole('tab', { name: 'Gallery' }).click()
  await expect(page.getByText('Gallery Coming Soon')).toBeVisible()
  await page.getByRole('tab', { name: 'Menu' }).click()
  await expect(page.getByText('Pricing varies and is by quote.')).toBeVisible()
})

test('our shop: MEET THE TEAM scrolls to the florists', async ({ page }) => {
  await gotoAndSettle(page, '/our-shop')
  await expect(page.getByText('within 48 hours')).toBeVisible()
  await page.getByRole('button', { name: 'MEET THE TEAM' }).click()
  await expect(page.getByRole('heading', { name: 'Meet our Florist' })).toBeInViewport()
  await expect(page.getByText('Florist', { exact: true })).toHaveCount(4)
})

test('/auth has a way back to the shop', async ({ page }) => {
  await gotoAndSettle(page, '/auth')
  await page.getByRole('link', { name: 'Back to the shop' }).click()
  await expect(page).toHaveURL(new RegExp(`^${process.env.E2E_SITE_URL}/$`))
})

test('the home hero draws its bouquet whole: no leaf is cut at the edge', async ({ page }) => {
  await gotoAndSettle(page, '/')
  const outside = await page
    .getByRole('img', { name: 'Illustration of a hand-tied bouquet' })
    .evaluate((svg) => {
      const frame = svg.getBoundingClientRect()
      return [...svg.querySelectorAll('ellipse, circle, path')]
        .map((el) => el.getBoundingClientRect())
        .filter(
          (r) =>
            r.left < frame.left - 0.5 ||
            r.right > frame.right + 0.5 ||
            r.top < frame.top - 0.5 ||
            r.bottom > frame.bottom + 0.5,
        ).length
    })
  expect(outside).toBe(0)
})

test.describe('mobile', () => {
  test.use({ viewport: { width: 375, height: 812 } })
  test('the flower toggle opens the menu, a link closes it', async ({ page }) => {
    await gotoAndSettle(page, '/')
    const toggle = page.getByRole('button', { name: 'Open menu' })
    await toggle.click()
    const panel = page.getByRole('navigation', { name: 'Mobile' })
    await expect(panel).toHaveAttribute('data-state', 'opening')
    await expect(panel).toHaveAttribute('data-state', 'open')
    await expect(panel.getByRole('link')).toHaveCount(9 + 7 + 1)
    await expect(panel.getByRole('link', { name: 'BUILD YOUR BOUQUET' })).toHaveAttribute(
      'href',
      '/build-bouquet',
    )
    await page.getByRole('button', { name: 'Close menu' }).click()
    await expect(panel).toHaveCount(0)
    await page.getByRole('button', { name: 'Open menu' }).click()
    await page
      .getByRole('navigation', { name: 'Mobile' })
      .getByRole('link', { name: 'Contact' })
      .click()
    await expect(page).toHaveURL(/\/contact$/)
    await expect(page.getByRole('navigation', { name: 'Mobile' })).toHaveCount(0)
  })
})

test.describe('at 375 px', () => {
  test.use({ viewport: { width: 375, height: 812 } })

  test('/happy-hour: the call-ahead line reads as one sentence and the number stays on one line', async ({
    page,
  }) => {
    await gotoAndSettle(page, '/happy-hour')
    const number = page.getByRole('link', { name: '(435) 555-0148' }).last()
    // One line of text: no taller than a line and a half.
    const { height, lineHeight } = await number.evaluate((a) => ({
      height: a.getBoundingClientRect().height,
      lineHeight: parseFloat(getComputedStyle(a).lineHeight),
    }))
    expect(height).toBeLessThan(lineHeight * 1.5)
    // The sentence is one block of text beside its icon, not columns.
    const sentence = (await page.getByText(/^Call ahead on/).boundingBox())!
    expect(sentence.width).toBeGreaterThan(200)
  })

  test('Tab goes round the open menu, never to the page behind it', async ({ page }) => {
    await gotoAndSettle(page, '/')
    await page.getByRole('button', { name: 'Open menu' }).click()
    const panel = page.getByRole('navigation', { name: 'Mobile' })
    await expect(panel).toHaveAttribute('data-state', 'open')
    const links = await panel.getByRole('link').count()
    for (let i = 0; i < links + 3; i++) {
      await page.keyboard.press('Tab')
      const inside = await page.evaluate(() => {
        const a = document.activeElement
        return (
          !!a &&
          (a.closest('nav[aria-label="Mobile"]') !== null ||
            a.getAttribute('aria-label') === 'Close menu')
        )
      })
      expect(inside, `Tab ${i + 1}`).toBe(true)
    }
    await page.keyboard.press('Shift+Tab')
    expect(
      await page.evaluate(
        () =>
          document.activeElement?.closest('nav[aria-label="Mobile"]') !== null ||
          document.activeElement?.getAttribute('aria-label') === 'Close menu',
      ),
    ).toBe(true)
  })

  test('only the logo bar stays at the top of a phone’s screen', async ({ page }) => {
    await gotoAndSettle(page, '/build-bouquet')
    await page.mouse.wheel(0, 900)
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(400)
    const sticky = await page.evaluate(() => {
      const bar = document.querySelector('[data-header-bar]')!.getBoundingClientRect()
      return { top: bar.top, height: bar.height }
    })
    expect(sticky.top).toBe(0)
    // Was 133 of 812 px with the contact bar; under a tenth of the screen now.
    expect(sticky.height).toBeLessThanOrEqual(81)
  })

  test('the open menu fits the screen, holds the page still, and Esc closes it', async ({
    page,
  }) => {
    await gotoAndSettle(page, '/')
    await page.getByRole('button', { name: 'Open menu' }).click()
    const panel = page.getByRole('navigation', { name: 'Mobile' })
    await expect(panel).toHaveAttribute('data-state', 'open')
    const box = (await panel.boundingBox())!
    expect(box.y + box.height).toBeLessThanOrEqual(812)
    await expect(panel.getByRole('link', { name: 'BUILD YOUR BOUQUET' })).toBeInViewport({
      ratio: 1,
    })
    // Scrolling over the header does not move the page behind the menu.
    await page.mouse.move(200, 20)
    await page.mouse.wheel(0, 600)
    await page.waitForTimeout(200)
    expect(await page.evaluate(() => window.scrollY)).toBe(0)
    await page.keyboard.press('Escape')
    await expect(panel).toHaveCount(0)
    await expect(page.getByRole('button', { name: 'Open menu' })).toBeFocused()
    // Closed, the page scrolls again.
    await page.mouse.wheel(0, 600)
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(0)
  })

  for (const path of [
    '/happy-hour',
    '/build-bouquet',
    '/weddings',
    '/contact',
    '/occasions/plants',
    '/our-shop',
  ]) {
    test(`${path}: the hero's decoration stays out of the title`, async ({ page }) => {
      await gotoAndSettle(page, path)
      const title = (await page.getByRole('heading', { level: 1 }).first().boundingBox())!
      // Every drawing in the hero band, whatever it is marked as.
      const overlaps = await page.locator('section:has(h1) svg').evaluateAll(
        (svgs, t) =>
          svgs
            .map((s) => s.getBoundingClientRect())
            .filter((r) => r.width > 0 && r.height > 0)
            .filter(
              (r) =>
                r.left < t.x + t.width && r.right > t.x && r.top < t.y + t.height && r.bottom > t.y,
            ).length,
        title,
      )
      expect(overlaps).toBe(0)
    })
  }
})

/** Sums the page's layout shifts (not those right after input) from its start. */
async function measureShifts(page: import('@playwright/test').Page) {
  await page.addInitScript(() => {
    ;(window as unknown as { cls: number }).cls = 0
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as (PerformanceEntry & {
        value: number
        hadRecentInput: boolean
      })[]) {
        if (!e.hadRecentInput) (window as unknown as { cls: number }).cls += e.value
      }
    }).observe({ type: 'layout-shift', buffered: true })
  })
  return () => page.evaluate(() => (window as unknown as { cls: number }).cls)
}

for (const width of [1280, 375]) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: width === 375 ? 812 : 800 } })

    test('the shop’s week: on the contact page and in the footer; the form’s calendar greys out Sundays; a Sunday is refused by the form and by the database', async ({
      page,
      request,
    }) => {
      await gotoAndSettle(page, '/contact')
      const hours = page.getByTestId('opening-hours')
      await expect(hours).toContainText('Monday – Friday9:00 AM – 6:00 PM')
      await expect(hours).toContainText('Saturday10:00 AM – 4:00 PM')
      await expect(hours).toContainText('SundayClosed')
      await expect(page.getByTestId('footer-hours')).toContainText('SundayClosed')

      await gotoAndSettle(page, '/build-bouquet')
      await expect(page.locator('#date-note')).toContainText('We are closed on Sundays.')
      const sunday = nextSunday()
      const open = shopDay()
      await page.getByRole('button', { name: 'Choose on the calendar' }).click()
      const calendar = page.getByRole('group', { name: 'Delivery days' })
      await expect(calendar).toBeVisible()
      // The calendar opens on today's month: go to the Sunday's.
      if (sunday.slice(0, 7) !== shopDay(0).slice(0, 7))
        await calendar.getByRole('button', { name: 'Next month' }).click()
      const axe = await new AxeBuilder({ page }).include('#wanted-calendar').analyze()
      expect(
        axe.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => v.id),
      ).toEqual([])
      const closedDay = calendar.locator(`[data-day="${sunday}"]`)
      await expect(closedDay).toHaveAttribute('aria-disabled', 'true')
      await expect(closedDay).toHaveAccessibleName(/, closed$/)
      await closedDay.click({ force: true })
      await expect(page.getByLabel('Delivery date')).toHaveValue('')
      if (open.slice(0, 7) !== sunday.slice(0, 7))
        await calendar
          .getByRole('button', { name: open > sunday ? 'Next month' : 'Previous month' })
          .click()
      await calendar.locator(`[data-day="${open}"]`).click()
      await expect(page.getByLabel('Delivery date')).toHaveValue(open)
      await expect(calendar).toHaveCount(0)

      // Typed in anyway: the form says why before anything is sent.
      await fillBouquet(
        page,
        { name: 'Sunday Sue', phone: '435-555-0177', email: `sunday-${width}@example.com` },
        sunday,
      )
      await page.getByRole('button', { name: 'Submit Bouquet Request' }).click()
      const summary = page.getByRole('alert').filter({ hasText: 'Please check' })
      await expect(
        summary.getByRole('link', {
          name: 'Date: We are closed on Sundays. Please choose another date.',
        }),
      ).toBeVisible()
      // And the database refuses it whoever sends it, in the same words.
      const key = process.env.E2E_SITE_SERVICE_KEY!
      const res = await request.post(`${process.env.E2E_SITE_URL}/rest/v1/bouquet_requests`, {
        headers: { apikey: key, authorization: `Bearer ${key}` },
        data: {
          size: 'good',
          colors: ['Pink'],
          design_style: 'modern',
          occasion: 'home',
          customer_name: 'Sue',
          customer_phone: '1',
          customer_email: `sunday-db-${width}@example.com`,
          fulfilment: 'pickup',
          wanted_on: sunday,
        },
      })
      expect(res.status()).toBe(400)
      expect((await res.json()).message).toBe(
        'We are closed on Sundays. Please choose another date.',
      )
    })

    test('an unknown request reference says so, and how to reach the shop', async ({ page }) => {
      await gotoAndSettle(page, '/build-bouquet/sent/0BADF00D')
      await expect(page.getByRole('heading', { level: 1, name: 'Request Not Found' })).toBeVisible()
      await expect(
        page.getByText('There is no request 0BADF00D sent from this browser.'),
      ).toBeVisible()
      await expect(page.getByRole('link', { name: 'Call (435) 555-0148' })).toHaveAttribute(
        'href',
        'tel:+14355550148',
      )
      await expect(page.getByText('Request Received')).toHaveCount(0)
      await gotoAndSettle(page, '/build-bouquet/sent/not-a-reference')
      await expect(page.getByText('This is not a request reference.')).toBeVisible()
    })

    test('/flowers reserves its grid: layout shift below 0.1', async ({ page }) => {
      const shifts = await measureShifts(page)
      await gotoAndSettle(page, '/flowers')
      await expect(page.getByTestId('product-grid')).toBeVisible()
      expect(await shifts()).toBeLessThan(0.1)
    })
  })
}
