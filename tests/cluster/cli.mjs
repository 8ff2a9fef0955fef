// `scripts/cluster up|down|status`: the scale-out topology of tests/cluster/topology.mjs on the
// usual local ports (HAProxy on 54321, PostgreSQL on 54322, the mail catcher on 54324), its
// processes detached, its data and logs in target/cluster. `down` stops it and keeps the data;
// `down --remove` deletes it too.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { repoRoot } from '../support/gateway.mjs'
import { pgBin, startCluster } from './topology.mjs'

const dir = process.env.CLUSTER_DIR ?? join(repoRoot, 'target/cluster')
const stateFile = join(dir, 'state.json')
const [command = 'status', ...flags] = process.argv.slice(2)

const readState = () => (existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, 'utf8')) : null)

/** The process `pid` if it is still the program we started (pids get reused). */
function alive(pid, program) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(program) ? pid : null
  } catch {
    return null
  }
}

const programOf = (name) => (name === 'haproxy' ? 'haproxy' : name === 'weed' ? 'weed' : 'supagate')

async function health(url) {
  try {
    return (await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) })).status
  } catch {
    return 'down'
  }
}

async function up() {
  const running = readState()
  if (running && Object.entries(running.pids).some(([n, pid]) => alive(pid, programOf(n)))) {
    console.log(`The cluster is already running at ${running.url} (scripts/cluster down stops it).`)
    return
  }
  const cluster = await startCluster({
    dir,
    ports: { lb: 54321, db: 54322, mail: 54324 },
    detached: true,
    log: (m) => console.log(m),
  })
  const state = cluster.state()
  writeFileSync(stateFile, JSON.stringify(state, null, 2))
  console.log(`
The shop, three replicas behind HAProxy: ${state.url}
Admin panel: ${state.url}/admin (admin@example.com / bloom-admin-123)
PostgreSQL: ${state.db}
Mail catcher: ${state.mail}
Objects: SeaweedFS S3 at ${state.s3}, bucket "shop"
Logs: ${dir}/*.log · stop with scripts/cluster down`)
  // The children are detached; this process has nothing left to wait for.
  process.exit(0)
}

async function down() {
  const state = readState()
  if (!state) {
    console.log('No cluster state in target/cluster: nothing to stop.')
  } else {
    // The balancer first, then the replicas, the object store, the database.
    for (const name of ['haproxy', ...Object.keys(state.replicas), 'weed']) {
      const pid = alive(state.pids[name], programOf(name))
      if (pid) process.kill(pid, 'SIGTERM')
    }
    const deadline = Date.now() + 15_000
    while (
      Object.entries(state.pids).some(([n, pid]) => alive(pid, programOf(n))) &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 100))
    for (const [n, pid] of Object.entries(state.pids))
      if (alive(pid, programOf(n))) process.kill(pid, 'SIGKILL')
    if (existsSync(join(state.pgData, 'postmaster.pid'))) {
      const pgCtl = [join(pgBin(), 'pg_ctl'), '-D', state.pgData, '-w', '-m', 'fast', 'stop']
      execFileSync(
        process.getuid?.() === 0 ? 'runuser' : pgCtl[0],
        process.getuid?.() === 0 ? ['-u', 'postgres', '--', ...pgCtl] : pgCtl.slice(1),
        { stdio: 'ignore' },
      )
    }
    rmSync(stateFile, { force: true })
    console.log('Stopped.')
  }
  if (flags.includes('--remove')) {
    rmSync(dir, { recursive: true, force: true })
    console.log(`Removed ${dir}.`)
  }
}

async function status() {
  const state = readState()
  if (!state) {
    console.log('Not running (scripts/cluster up starts it).')
    process.exitCode = 1
    return
  }
  console.log(`balancer ${state.url}: ${await health(state.url)}`)
  for (const [name, url] of Object.entries(state.replicas)) {
    console.log(
      `${name} ${url}: ${await health(url)} (pid ${alive(state.pids[name], 'supagate') ?? 'gone'})`,
    )
  }
  console.log(`SeaweedFS ${state.s3}: pid ${alive(state.pids.weed, 'weed') ?? 'gone'}`)
  console.log(
    `PostgreSQL ${state.db}: ${existsSync(join(state.pgData, 'postmaster.pid')) ? 'running' : 'stopped'}`,
  )
}

const commands = { up, down, status }
if (!commands[command]) {
  console.error(`unknown command ${command}: use up, down [--remove], status or test`)
  process.exit(2)
}
await commands[command]()
