import { startGateway } from '../support/gateway.mjs'

/** One gateway with the demo data serves the built site for the whole run. */
export default async function globalSetup() {
  const gw = await startGateway({ site: true })
  process.env.E2E_BASE_URL = gw.url
  process.env.E2E_ANON_KEY = gw.anonKey
  process.env.E2E_SERVICE_KEY = gw.serviceKey
  process.env.E2E_DATA_DIR = gw.dataDir
  return async () => gw.stop()
}
