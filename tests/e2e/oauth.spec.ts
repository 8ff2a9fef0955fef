import { test, expect } from '@playwright/test'
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { startGateway, repoRoot } from '../support/gateway.mjs'

/**
 * "Sign in with GitHub" in Chromium, offline: an app page (served by the test on 127.0.0.1, with
 * supabase-js's browser bundle) starts the sign-in, supagate's local stand-in page plays GitHub,
 * and the app ends up with the session supabase-js read from the URL it was sent back to.
 */
let gw: { url: string; anonKey: string; stop: () => Promise<void> }
let app: Server
let APP = ''
let flow: 'implicit' | 'pkce' = 'implicit'
test.beforeAll(async () => {
  gw = await startGateway({ workdir: join(repoRoot, 'tests/fixtures/auth-flows') })
  app = createServer((req, res) => {
    const script = req.url === '/supabase.js'
    res.writeHead(200, { 'content-type': script ? 'application/javascript' : 'text/html' })
    res.end(script ? bundle : appPage(flow))
  })
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r))
  const address = app.address()
  APP = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
})
test.afterAll(async () => {
  app?.close()
  await gw?.stop()
})

const bundle = readFileSync(
  join(repoRoot, 'node_modules/@supabase/supabase-js/dist/umd/supabase.js'),
  'utf8',
)

function appPage(flowType: 'implicit' | 'pkce') {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bluebell sign-in</title></head>
<body><button id="go">Sign in with GitHub</button><p id="who">signed out</p>
<script src="/supabase.js"></script>
<script>
  const c = supabase.createClient(${JSON.stringify(gw.url)}, ${JSON.stringify(gw.anonKey)}, { auth: { flowType: '${flowType}' } })
  const show = (s) => { if (s) document.getElementById('who').textContent = 'signed in as ' + s.user.email }
  c.auth.onAuthStateChange((_e, s) => show(s))
  c.auth.getSession().then(({ data }) => show(data.session))
  document.getElementById('go').onclick = () =>
    c.auth.signInWithOAuth({ provider: 'github', options: { redirectTo: location.origin + '/' } })
</script></body></html>`
}

for (const flowType of ['implicit', 'pkce'] as const) {
  test(`an OAuth round trip through the local stand-in (${flowType})`, async ({ page }) => {
    flow = flowType
    await page.goto(`${APP}/`)
    await page.getByRole('button', { name: 'Sign in with GitHub' }).click()
    await expect(page.getByRole('heading', { name: 'Sign in with Github' })).toBeVisible()
    const email = `octo-${flowType}-${Date.now()}@example.com`
    await page.getByLabel('Name').fill('Octo Cat')
    await page.getByLabel('E-mail').fill(email)
    await page.getByRole('button', { name: 'Continue' }).click()
    await expect(page.locator('#who')).toHaveText(`signed in as ${email}`)
    expect(new URL(page.url()).origin).toBe(APP)
  })
}
