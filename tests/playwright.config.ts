import { defineConfig, devices } from '@playwright/test'

// Debian's Chromium: Playwright's own browser download is not available on these machines.
const chromium = {
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
}

export default defineConfig({
  testDir: './e2e',
  globalSetup: './e2e/global-setup.ts',
  fullyParallel: false,
  workers: 2,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 7_000 },
  reporter: [['list'], ['json', { outputFile: 'test-results/results.json' }]],
  use: {
    trace: 'off',
    screenshot: 'only-on-failure',
  },
  // Each project has a gateway of its own (global-setup.ts), so the admin tests' edits never
  // reach the site tests.
  projects: [
    {
      name: 'site',
      testMatch: 'site.spec.ts',
      use: {
        ...devices['Desktop Chrome'],
        viewport: { width: 1280, height: 800 },
        launchOptions: chromium,
        baseURL: process.env.E2E_SITE_URL,
      },
    },
    {
      // Starts a gateway of its own (tests/fixtures/auth-flows) and plays the app itself.
      name: 'oauth',
      testMatch: 'oauth.spec.ts',
      use: {
        ...devices['Desktop Chrome'],
        viewport: { width: 1280, height: 800 },
        launchOptions: chromium,
      },
    },
    {
      // Starts a gateway of its own, stops it under the page and starts it again; on a phone.
      name: 'outage',
      testMatch: 'outage.spec.ts',
      use: {
        ...devices['Desktop Chrome'],
        viewport: { width: 375, height: 812 },
        isMobile: false,
        hasTouch: true,
        launchOptions: chromium,
      },
    },
    {
      // Starts gateways of its own (a copy of the shop's folder and an empty project).
      name: 'studio',
      testMatch: 'studio.spec.ts',
      use: {
        ...devices['Desktop Chrome'],
        viewport: { width: 1280, height: 800 },
        launchOptions: chromium,
        acceptDownloads: true,
      },
    },
    {
      name: 'admin',
      testMatch: 'admin.spec.ts',
      use: {
        ...devices['Desktop Chrome'],
        viewport: { width: 1280, height: 800 },
        launchOptions: chromium,
        baseURL: process.env.E2E_ADMIN_URL,
      },
    },
  ],
})
