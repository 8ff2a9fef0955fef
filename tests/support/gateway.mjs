// Starts a real gateway on a fresh throwaway database (its own data directory, unix socket only,
// a free port) and reads the URL and keys from its banner. Its stdin is a pipe owned by this
// process: when the tests end, however they end, the gateway and its PostgreSQL stop.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
export const gatewayBinary = process.env.SUPAGATE_BIN ?? join(root, 'target/debug/supagate')

export async function startGateway({ args = [], env = {}, site = false, dataDir: keepDir } = {}) {
  // A given data directory is kept (restart tests); a fresh one is deleted on stop.
  const dataDir = keepDir ?? mkdtempSync(join(tmpdir(), 'supagate-test-'))
  chmodSync(dataDir, 0o755)
  const child = spawn(
    gatewayBinary,
    ['--data-dir', join(dataDir, 'data'), '--port', '0', '--db-port', '0', '--stop-on-stdin-close', ...args, 'start'],
    {
      env: {
        ...process.env,
        RUST_LOG: 'warn',
        SUPAGATE_SITE_DIR: site ? join(root, 'frontend/dist') : join(dataDir, 'no-site'),
        // Tests sign in far more often than people do.
        RATE_LIMIT_SIGN_IN: '100000',
        RATE_LIMIT_TOKEN_REFRESH: '100000',
        ...env,
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  )
  const info = await new Promise((resolvePromise, reject) => {
    let buf = ''
    const found = {}
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${buf}`)), 30000)
    child.on('exit', (code) => reject(new Error(`gateway exited with ${code}:\n${buf}`)))
    child.stdout.on('data', (chunk) => {
      buf += chunk
      for (const line of buf.split('\n')) {
        const m = line.match(/^\s*([A-Za-z_ ]+?):\s+(\S.*)$/)
        if (m) found[m[1].trim()] = m[2].trim()
      }
      if (buf.includes('Press Ctrl-C')) {
        clearTimeout(timer)
        resolvePromise(found)
      }
    })
  })
  child.stdout.resume()
  const exited = new Promise((r) => child.once('exit', r))
  return {
    url: info['API URL'],
    anonKey: info['anon key'],
    serviceKey: info['service_role key'],
    dataDir,
    async stop() {
      child.stdin.end()
      await exited
      if (!keepDir) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export const DEMO_ADMIN = { email: 'admin@example.com', password: 'bloom-admin-123' }
