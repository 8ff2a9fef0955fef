// Storage through supabase-js with objects in local files (the default backend).
import { startGateway } from '../support/gateway.mjs'
import { storageSuite } from './storage-suite.mjs'

storageSuite(() => startGateway())
