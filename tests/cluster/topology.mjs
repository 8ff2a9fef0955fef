// The scale-out topology on real parts, all on 127.0.0.1: one PostgreSQL (the replicas' external
// database), SeaweedFS as the S3 object store, N supagate replicas serving the shop, and HAProxy
// in front. `scripts/cluster up` runs it on the usual ports; the cluster tests and the cluster
// benchmark start their own on free ports and remove it afterwards.
import { spawn, execFileSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { createHmac } from 'node:crypto'
import { gatewayBinary, repoRoot } from '../support/gateway.mjs'
import { freePorts } from '../support/ports.mjs'
import { startSeaweed } from '../support/seaweed.mjs'
import { sleep, until } from '../support/wait.mjs'

const asRoot = process.getuid?.() === 0

/** The Supabase CLI's demo secret: what the replicas sign with when none is configured. */
export const DEMO_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long'

/** An HS256 API key for `role` under the demo secret (the CLI's published keys are such tokens). */
export function apiKey(role, secret = DEMO_JWT_SECRET) {
  const part = (o) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ iss: 'supabase-demo', role, exp: 1983812996 })}`
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`
}

/** The PostgreSQL binaries (initdb, pg_ctl, psql), newest installed version. */
export function pgBin() {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root)
    ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    : []
  versions.sort((a, b) => Number(b) - Number(a))
  if (!versions.length)
    throw new Error('PostgreSQL server binaries not found (apt-get install postgresql)')
  return join(root, versions[0], 'bin')
}

/** Runs a PostgreSQL binary, as the `postgres` user when this process is root (PostgreSQL refuses root). */
function pgRun(tool, args, opts = {}) {
  const bin = join(pgBin(), tool)
  return asRoot
    ? execFileSync('runuser', ['-u', 'postgres', '--', bin, ...args], { encoding: 'utf8', ...opts })
    : execFileSync(bin, args, { encoding: 'utf8', ...opts })
}

/** A PostgreSQL cluster of its own in `dir`, listening on 127.0.0.1:`port`, password auth. */
export function postgres(dir, port) {
  const data = join(dir, 'pg')
  const log = join(dir, 'pg.log')
  const ctl = (...args) => pgRun('pg_ctl', ['-D', data, '-l', log, ...args], { stdio: 'pipe' })
  return {
    port,
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`,
    init() {
      mkdirSync(data, { recursive: true })
      chmodSync(dir, 0o755)
      if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', dir])
      writeFileSync(join(dir, 'pwfile'), 'postgres\n')
      if (asRoot) execFileSync('chown', ['postgres:postgres', join(dir, 'pwfile')])
      pgRun(
        'initdb',
        [
          '-D',
          data,
          '-U',
          'postgres',
          '--auth=scram-sha-256',
          `--pwfile=${join(dir, 'pwfile')}`,
          '-E',
          'UTF8',
          '--locale=C',
        ],
        { stdio: 'pipe' },
      )
      // What the replicas need: logical decoding for Realtime, connections for three pools.
      writeFileSync(
        join(data, 'postgresql.auto.conf'),
        `${[
          `port = ${port}`,
          "listen_addresses = '127.0.0.1'",
          `unix_socket_directories = '${data}'`,
          'wal_level = logical',
          'max_replication_slots = 64',
          'max_wal_senders = 16',
          "max_slot_wal_keep_size = '1GB'",
          'max_connections = 300',
          'shared_buffers = 128MB',
          'fsync = on',
        ].join('\n')}\n`,
      )
      if (asRoot) execFileSync('chown', ['postgres:postgres', join(data, 'postgresql.auto.conf')])
    },
    start() {
      ctl('-w', '-t', '60', 'start')
    },
    stop(mode = 'fast') {
      try {
        ctl('-w', '-m', mode, 'stop')
      } catch {
        // already stopped
      }
    },
    restart() {
      ctl('-w', '-t', '60', '-m', 'fast', 'restart')
    },
    /** Runs SQL as the owner; returns psql's unaligned output. */
    sql(query) {
      return execFileSync(
        join(pgBin(), 'psql'),
        [
          '-X',
          '-A',
          '-t',
          '-v',
          'ON_ERROR_STOP=1',
          '-d',
          `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`,
          '-c',
          query,
        ],
        {
          encoding: 'utf8',
        },
      ).trim()
    },
  }
}

/** One supagate replica on the shared database and object store. */
function replica({ name, dir, workdir, port, dbUrl, lbUrl, mailPort, env: extraEnv, detached }) {
  const dataDir = join(dir, name)
  mkdirSync(dataDir, { recursive: true })
  const args = [
    '--workdir',
    workdir,
    '--data-dir',
    dataDir,
    '--database-url',
    dbUrl,
    '--port',
    String(port),
    '--mail-port',
    String(mailPort),
    '--studio-port',
    '0',
    '--site-dir',
    join(repoRoot, 'frontend/dist'),
    // HAProxy appends the client address to X-Forwarded-For: rate limits count that entry.
    '--rate-limit-ip-header',
    'X-Forwarded-For',
    '--api-external-url',
    lbUrl,
    ...(detached ? [] : ['--stop-on-stdin-close']),
    'start',
  ]
  const env = { ...process.env, RUST_LOG: process.env.RUST_LOG ?? 'warn', ...extraEnv }
  let child = null
  const self = {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    dataDir,
    get pid() {
      return child?.pid
    },
    start() {
      const log = openSync(join(dir, `${name}.log`), 'a')
      child = spawn(gatewayBinary, args, {
        env,
        stdio: [detached ? 'ignore' : 'pipe', log, log],
        detached,
      })
      if (detached) child.unref()
      return until(async () => (await fetch(`${self.url}/health`)).ok, `replica ${name}`, 60_000)
    },
    /** kill -9: no goodbye to the balancer or the database. */
    kill() {
      child?.kill('SIGKILL')
    },
    async stop() {
      if (!child || child.exitCode !== null) return
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await Promise.race([exited, sleep(10_000)])
      if (child.exitCode === null) child.kill('SIGKILL')
    },
  }
  return self
}

/** deploy/haproxy.cfg (what compose.yaml runs) with this topology's addresses. */
function haproxyConfig(lbPort, replicas) {
  const template = readFileSync(join(repoRoot, 'deploy/haproxy.cfg'), 'utf8')
  const servers = replicas.map((r) => `  server ${r.name} 127.0.0.1:${r.port} check`).join('\n')
  const config = template
    .replace(/^ {2}bind .*$/m, `  bind 127.0.0.1:${lbPort}`)
    .replace(/(^ {2}server .*\n)+/m, `${servers}\n`)
  if (!config.includes(`127.0.0.1:${lbPort}`) || !config.includes(servers))
    throw new Error('deploy/haproxy.cfg lacks the bind or server lines')
  return config
}

/**
 * Starts the whole topology. `ports`: { lb, db, mail } for the usual ones (`scripts/cluster up`),
 * else free ports. `env`: extra settings of every replica. `detached`: the processes outlive this
 * one (up/down), else they stop with it.
 */
/** `workdir`: the project the replicas serve (default: the shop at the repository root). */
export async function startCluster({
  dir,
  workdir = repoRoot,
  replicas: count = 3,
  ports = {},
  env = {},
  detached = false,
  log = () => {},
} = {}) {
  mkdirSync(dir, { recursive: true })
  const [lbPort, dbPort, ...replicaPorts] = await freePorts(2 + count)
  const lb = ports.lb ?? lbPort
  const lbUrl = `http://127.0.0.1:${lb}`
  const pg = postgres(dir, ports.db ?? dbPort)
  log(`PostgreSQL on 127.0.0.1:${pg.port}`)
  // `scripts/cluster up` after `down` finds its database where it left it.
  if (!existsSync(join(dir, 'pg', 'PG_VERSION'))) pg.init()
  pg.start()
  const weedDir = join(dir, 'seaweedfs')
  mkdirSync(weedDir, { recursive: true })
  const weed = await startSeaweed({ bucket: 'shop', dir: weedDir, detached })
  log(`SeaweedFS S3 on ${weed.endpoint}`)
  const nodes = replicaPorts.map((port, i) =>
    replica({
      name: `r${i + 1}`,
      dir,
      workdir,
      port,
      dbUrl: pg.url,
      lbUrl,
      // One catcher page is enough: the first replica's (all read the same table).
      mailPort: i === 0 && ports.mail ? ports.mail : 0,
      env: { ...weed.env, ...env },
      detached,
    }),
  )
  // The first replica migrates and seeds; the others then find the database ready.
  await nodes[0].start()
  await Promise.all(nodes.slice(1).map((n) => n.start()))
  log(`replicas: ${nodes.map((n) => n.url).join(', ')}`)
  const cfg = join(dir, 'haproxy.cfg')
  const haproxyLog = join(dir, 'haproxy.log')
  writeFileSync(cfg, haproxyConfig(lb, nodes))
  const haproxy = spawn('haproxy', ['-f', cfg, '-db'], {
    stdio: ['ignore', openSync(haproxyLog, 'a'), openSync(haproxyLog, 'a')],
    detached,
  })
  if (detached) haproxy.unref()
  // A balancer that cannot start (its port taken) fails at once, saying why.
  const exited = new Promise((_, reject) =>
    haproxy.once('exit', (code) =>
      reject(
        new Error(
          `HAProxy exited with ${code}: ${readFileSync(haproxyLog, 'utf8').trim().slice(-2000)}`,
        ),
      ),
    ),
  )
  exited.catch(() => {}) // a later exit (stop, or a test's kill) is no failure
  await Promise.race([
    until(
      async () => haproxy.exitCode !== null || (await fetch(`${lbUrl}/health`)).ok,
      'HAProxy',
      60_000,
    ),
    exited,
  ])
  log(`HAProxy on ${lbUrl}`)
  const cluster = {
    dir,
    url: lbUrl,
    anonKey: apiKey('anon'),
    serviceKey: apiKey('service_role'),
    pg,
    weed,
    replicas: nodes,
    haproxy,
    /** What `scripts/cluster down` and `status` need once this process is gone. */
    state: () => ({
      url: lbUrl,
      db: pg.url,
      pgData: join(dir, 'pg'),
      s3: weed.endpoint,
      mail: ports.mail ? `http://127.0.0.1:${ports.mail}` : null,
      pids: {
        haproxy: haproxy.pid,
        weed: weed.pid,
        ...Object.fromEntries(nodes.map((n) => [n.name, n.pid])),
      },
      replicas: Object.fromEntries(nodes.map((n) => [n.name, n.url])),
    }),
    /** Waits until the balancer's health checks see every replica up. */
    async settled() {
      await until(
        async () =>
          (await Promise.all(nodes.map((n) => fetch(`${n.url}/health`).then((r) => r.ok)))).every(
            Boolean,
          ),
        'all replicas healthy behind HAProxy',
        60_000,
      )
      await sleep(1200)
    },
    async stop() {
      haproxy.kill('SIGTERM')
      await Promise.all(nodes.map((n) => n.stop()))
      await weed.stop()
      pg.stop()
    },
    remove() {
      rmSync(dir, { recursive: true, force: true })
    },
  }
  return cluster
}
