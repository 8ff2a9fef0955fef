// Writes a screenshot of every Studio page, in the light and the dark theme, 1280 x 800, to
// docs/screenshots/studio/<page>-<theme>.png, against a fresh gateway on a copy of the shop
// (with a function that logs, a few requests in Logs, a mail caught and a snippet saved).
// Not part of the test suites: run `scripts/studio-screenshots` after changing a page.
import { chromium } from '@playwright/test'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { repoRoot, startGateway } from './support/gateway.mjs'

const out = resolve(dirname(fileURLToPath(import.meta.url)), '../docs/screenshots/studio')
mkdirSync(out, { recursive: true })
for (const f of readdirSync(out)) if (f.endsWith('.png')) rmSync(join(out, f))

const ADMIN_ID = 'b1ebe11a-0000-4000-8000-000000000001'

// [file name, path, what shows when the page is ready, what to do first]
const pages = [
  ['tables', '/tables/public/products', (p) => p.getByRole('table', { name: 'Rows of products' })],
  [
    'tables-structure',
    '/tables/public/products',
    (p) => p.getByRole('tabpanel'),
    (p) => p.getByRole('tab', { name: 'Structure' }).click(),
  ],
  [
    'tables-policies',
    '/tables/public/products',
    (p) => p.getByRole('tabpanel'),
    (p) => p.getByRole('tab', { name: /^Policies/ }).click(),
  ],
  ['enums', '/tables/public?view=enums', null],
  [
    'sql',
    '/sql',
    (p) => p.getByRole('region', { name: 'Results' }).getByRole('table'),
    async (p) => {
      await p
        .getByLabel('SQL', { exact: true })
        .fill(
          'select c.name as category, count(*) as products\nfrom categories c\njoin product_categories pc on pc.category_id = c.id\ngroup by c.name\norder by products desc;',
        )
      await p.getByRole('button', { name: /^Run/ }).click()
    },
  ],
  ['database', '/database/tables', (p) => p.getByRole('table')],
  ['database-policies', '/database/policies', (p) => p.getByRole('table')],
  ['database-extensions', '/database/extensions', (p) => p.getByRole('table')],
  ['auth-users', '/auth/users', (p) => p.getByText('admin@example.com').first()],
  ['auth-user', `/auth/users/${ADMIN_ID}`, (p) => p.getByText('admin@example.com').first()],
  ['auth-messages', '/auth/messages', null],
  ['storage', '/storage', null],
  ['storage-bucket', '/storage/product-images', null],
  ['realtime', '/realtime', null],
  ['functions', '/functions', (p) => p.getByRole('link', { name: /echo/ })],
  [
    'functions-echo',
    '/functions/echo',
    (p) => p.getByLabel('Answer status'),
    async (p) => {
      await p.getByLabel('Method').selectOption('GET')
      await p.getByRole('button', { name: 'Send' }).click()
    },
  ],
  ['logs', '/logs', null],
  ['api-docs', '/api-docs', null],
  ['settings', '/settings', (p) => p.getByRole('region', { name: 'Auth configuration' })],
  [
    'shortcuts',
    '/tables',
    (p) => p.getByRole('dialog', { name: 'Keyboard shortcuts' }),
    async (p) => {
      await p.getByRole('navigation', { name: 'Studio' }).waitFor()
      await p.keyboard.press('?')
    },
  ],
]

const dir = mkdtempSync(join(tmpdir(), 'supagate-studio-shots-'))
cpSync(join(repoRoot, 'supabase'), join(dir, 'supabase'), { recursive: true })
mkdirSync(join(dir, 'supabase/functions/echo'), { recursive: true })
writeFileSync(
  join(dir, 'supabase/functions/echo/index.ts'),
  `Deno.serve((req) => { console.log('echo says', new URL(req.url).searchParams.get('word')); return new Response('ok') })\n`,
)
mkdirSync(join(dir, 'supabase/snippets'), { recursive: true })
writeFileSync(
  join(dir, 'supabase/snippets/featured products.sql'),
  'select name, price from products where is_featured order by name;\n',
)
const gw = await startGateway({ workdir: dir })
const api = gw.status.API_URL
const anon = gw.status.ANON_KEY
const studio = gw.status.STUDIO_URL
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
})
const written = []
try {
  // Something in Logs and in the catcher: a few requests (one failing), a call of the function,
  // a password-recovery mail.
  const headers = { apikey: anon, authorization: `Bearer ${anon}` }
  await fetch(`${api}/rest/v1/products?select=name&limit=3`, { headers })
  await fetch(`${api}/rest/v1/nope`, { headers })
  await fetch(`${api}/functions/v1/echo?word=hello`, { headers })
  await fetch(`${api}/auth/v1/recover`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com' }),
  })
  for (const theme of ['light', 'dark']) {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      deviceScaleFactor: 1,
      colorScheme: theme,
    })
    await context.addInitScript((t) => localStorage.setItem('studio.theme', t), theme)
    const page = await context.newPage()
    // Studio's link signs the browser in (its cookie), as `supagate start` prints it.
    await page.goto(`${studio}/tables?token=${gw.status.STUDIO_TOKEN}`)
    await page.getByRole('navigation', { name: 'Studio' }).waitFor()
    for (const [name, path, ready, before] of pages) {
      await page.goto(studio + path)
      await page.getByRole('navigation', { name: 'Studio' }).waitFor()
      if (before) await before(page)
      if (ready) await ready(page).first().waitFor({ timeout: 15_000 })
      await page.waitForLoadState('networkidle')
      await page.waitForTimeout(300)
      const file = `${name}-${theme}.png`
      await page.screenshot({ path: join(out, file) })
      written.push(file)
    }
    await context.close()
  }
} finally {
  await browser.close()
  await gw.stop()
  rmSync(dir, { recursive: true, force: true })
}
console.log(`${written.length} screenshots in ${out}`)
