// Starts a real gateway on a throwaway cluster of its own (its own data directory, unix socket
// only, a free port) running a project folder (the shop by default), and reads its one-line
// JSON ready message (`supagate start -o json`: the values of `supagate status -o json`).
// Its stdin is a pipe owned by this process: when the tests end, however they end, the gateway
// and its PostgreSQL stop.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
export const gatewayBinary = process.env.SUPAGATE_BIN ?? join(repoRoot, 'target/debug/supagate')

/** Reads the first line of a child's stdout as the ready message. */
function readyLine(child, timeoutMs) {
  return new Promise((resolvePromise, reject) => {
    let buf = ''
    const timer = setTimeout(
      () => reject(new Error(`the gateway did not start within ${timeoutMs} ms:\n${buf}`)),
      timeoutMs,
    )
    const onExit = (code) => {
      clearTimeout(timer)
      reject(new Error(`the gateway exited with ${code} before it was ready:\n${buf}`))
    }
    child.once('exit', onExit)
    child.stdout.on('data', function onData(chunk) {
      buf += chunk
      const nl = buf.indexOf('\n')
      if (nl < 0) return
      clearTimeout(timer)
      child.off('exit', onExit)
      child.stdout.off('data', onData)
      try {
        resolvePromise(JSON.parse(buf.slice(0, nl)))
      } catch (e) {
        reject(new Error(`the ready line is not JSON (${e.message}): ${buf}`))
      }
    })
  })
}

/**
 * @param {{ args?: string[], env?: Record<string,string>, site?: boolean, dataDir?: string, workdir?: string, binary?: string }} options
 *   `dataDir`: use and keep this data directory (restart tests); else a new one, deleted on stop.
 *   `workdir`: the project folder (default: the shop at the repository root).
 *   `port`: the HTTP port (default: a free one; a restart test gives the one it had).
 */
export async function startGateway({
  args = [],
  env = {},
  site = false,
  dataDir: keepDir,
  workdir = repoRoot,
  binary = gatewayBinary,
  port = 0,
} = {}) {
  const scratch = keepDir ? null : mkdtempSync(join(tmpdir(), 'supagate-test-'))
  if (scratch) chmodSync(scratch, 0o755)
  const dataDir = keepDir ?? join(scratch, 'data')
  const siteArgs = site ? ['--site-dir', join(repoRoot, 'frontend/dist')] : []
  const child = spawn(
    binary,
    [
      '--workdir',
      workdir,
      '--data-dir',
      dataDir,
      '--port',
      String(port),
      '--db-port',
      '0',
      '--mail-port',
      '0',
      '--studio-port',
      '0',
      '--stop-on-stdin-close',
      ...siteArgs,
      ...args,
      'start',
      '-o',
      'json',
    ],
    {
      env: {
        ...process.env,
        DATABASE_URL: '',
        RUST_LOG: 'warn',
        // The private installations of PostgreSQL the tests' clusters share (not the user's cache).
        SUPAGATE_CACHE_DIR: join(repoRoot, 'target/tmp/pg-cache'),
        // Tests sign in far more often than people do.
        RATE_LIMIT_SIGN_IN: '100000',
        RATE_LIMIT_TOKEN_REFRESH: '100000',
        ...env,
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  )
  const status = await readyLine(child, 60000)
  child.stdout.resume()
  const exited = new Promise((r) => child.once('exit', r))
  return {
    url: status.API_URL,
    anonKey: status.ANON_KEY,
    serviceKey: status.SERVICE_ROLE_KEY,
    dbUrl: status.DB_URL,
    status,
    dataDir,
    pid: child.pid,
    async stop() {
      child.stdin.end()
      await exited
      if (scratch) rmSync(scratch, { recursive: true, force: true })
    },
  }
}

/** The shop's demo administrator, created by supabase/seed.sql. */
export const DEMO_ADMIN = { email: 'admin@example.com', password: 'bloom-admin-123' }
