import { startGateway } from '../support/gateway.mjs'

/**
 * Two gateways serve the built site, each with the shop's demo data and a cluster of its own:
 * one for the read-only site tests, one for the admin tests that change the catalogue. No test
 * sees another's writes (see the projects in playwright.config.ts).
 */
export default async function globalSetup() {
  const [site, admin] = await Promise.all([
    startGateway({ site: true }),
    startGateway({ site: true }),
  ])
  process.env.E2E_SITE_URL = site.url
  process.env.E2E_SITE_SERVICE_KEY = site.serviceKey
  process.env.E2E_ADMIN_URL = admin.url
  process.env.E2E_ADMIN_SERVICE_KEY = admin.serviceKey
  process.env.E2E_ADMIN_ANON_KEY = admin.anonKey
  process.env.E2E_ADMIN_DATA_DIR = admin.dataDir
  process.env.E2E_ADMIN_MAIL_URL = admin.status.MAILPIT_URL
  return async () => {
    await Promise.all([site.stop(), admin.stop()])
  }
}
