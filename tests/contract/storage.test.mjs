// Storage through supabase-js with objects in local files (the default backend).
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { startGateway } from '../support/gateway.mjs'
import { storageSuite } from './storage-suite.mjs'

storageSuite(async () => {
  const gw = await startGateway()
  return {
    ...gw,
    /** Keys of the stored files under `prefix` (a folder of the object store). */
    async stored(prefix) {
      const dir = join(gw.dataDir, 'storage', prefix)
      return existsSync(dir)
        ? readdirSync(dir, { recursive: true }).map((f) => `${prefix}${f}`)
        : []
    },
  }
})
