// Storage through supabase-js with objects in SeaweedFS over its S3 API: the same suite as on
// local files, and the bytes are in the bucket, not on the gateway's disk.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { startGateway } from '../support/gateway.mjs'
import { startSeaweed } from '../support/seaweed.mjs'
import { storageSuite } from './storage-suite.mjs'

let weed, gateway
storageSuite(async () => {
  weed = await startSeaweed()
  gateway = await startGateway({ env: weed.env })
  return {
    ...gateway,
    stored: (prefix) => weed.keys(prefix),
    async stop() {
      await gateway.stop()
      await weed.stop()
    },
  }
})

test('the bytes live in the S3 bucket, none on the gateway disk', async () => {
  const keys = await weed.keys('versions/')
  assert.ok(keys.length >= 1, 'objects in SeaweedFS')
  const local = join(gateway.dataDir, 'storage', 'versions')
  assert.ok(!existsSync(local) || readdirSync(local).length === 0, 'no version files on local disk')
})
