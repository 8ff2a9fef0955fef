// Helpers the benchmark scripts share.
import { execFileSync } from 'node:child_process'
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The newest PostgreSQL's programs on this machine (psql, pgbench). */
export const PG_BIN = execFileSync('sh', [
  '-c',
  'ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1',
])
  .toString()
  .trim()

/** Runs `sql` as postgres on the database of the gateway `gw` (over its cluster's socket),
 * stopping at the first error; what psql prints, unaligned and trimmed. */
export const psql = (gw, sql) =>
  execFileSync(
    join(PG_BIN, 'psql'),
    [
      '-X',
      '-q',
      '-t',
      '-A',
      '-h',
      join(gw.dataDir, 'pg'),
      '-p',
      '5432',
      '-U',
      'postgres',
      '-d',
      'postgres',
      '-v',
      'ON_ERROR_STOP=1',
      '-c',
      sql,
    ],
    { encoding: 'utf8', maxBuffer: 64 << 20 },
  ).trim()

export const round = (x, d = 1) =>
  x === null || x === undefined || Number.isNaN(x) ? null : Math.round(x * 10 ** d) / 10 ** d

/** PostgreSQL's settings for the REST loads (bench.mjs, memory.mjs): a benchmark's, not a server's. */
export const TUNING =
  'shared_buffers=256MB synchronous_commit=off fsync=off full_page_writes=off max_connections=200 log_min_messages=warning'

/**
 * The REST loads' catalogue: 10,000 products in 50 categories and a link for each product; then
 * db-tx-end set to allow overriding (load (d) rolls its inserts back with Prefer: tx=rollback, which
 * PostgREST honours only then), waited for until the gateway has reloaded it.
 */
export async function loadCatalogue(gw, anonKey) {
  psql(
    gw,
    `
  INSERT INTO public.categories (name, slug, order_by) SELECT 'Bench ' || i, 'bench-' || i, 100 + i FROM generate_series(1, 50) i;
  INSERT INTO public.products (name, sku, description, base_price, category_id, is_available, ecwid_product_id)
    SELECT 'Product ' || lpad(i::text, 5, '0'), 'B-' || i, 'A bench product with a realistic description of its flowers.', (i % 200) + 0.99,
           (SELECT id FROM public.categories WHERE slug = 'bench-' || (1 + i % 50)), i % 10 <> 0, (700000000 + i)::text
    FROM generate_series(1, 10000) i;
  INSERT INTO public.product_categories (product_id, category_id)
    SELECT p.id, c.id FROM public.products p JOIN public.categories c ON c.slug = 'bench-' || (1 + (substr(p.sku, 3)::int * 7) % 50)
    WHERE p.sku LIKE 'B-%' ON CONFLICT DO NOTHING;
  ANALYZE;`,
  )
  psql(
    gw,
    "ALTER ROLE authenticator SET pgrst.db_tx_end = 'commit-allow-override'; NOTIFY pgrst, 'reload config'",
  )
  for (let i = 0; ; i++) {
    // curl, not fetch: no pooled connection is left to go stale before the measurements.
    const applied = execFileSync(
      'curl',
      [
        '-s',
        '-o',
        '/dev/null',
        '-D',
        '-',
        '-H',
        `apikey: ${anonKey}`,
        '-H',
        'prefer: tx=rollback',
        `${gw.url}/rest/v1/categories?select=id&limit=1`,
      ],
      { encoding: 'utf8' },
    )
    if (/^preference-applied: tx=rollback\r?$/im.test(applied)) return
    if (i === 100) throw new Error('pgrst.db_tx_end was not reloaded')
    await new Promise((res) => setTimeout(res, 50))
  }
}

/** The middle value of `xs` (the upper one of an even count). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** `{ min, median, max }` of repeated measurements, rounded to `d` places. */
export function spread(xs, d = 1) {
  const sorted = [...xs].sort((a, b) => a - b)
  return { min: round(sorted[0], d), median: round(median(xs), d), max: round(sorted.at(-1), d) }
}

/**
 * Runs wrk for `dur` seconds with `conns` connections; the Lua script it needs is written to
 * `dir`; `cpus` pins it (taskset's list). Returns { rps, p50, p99 (ms), errors, non2xx, cpu (the
 * CPU seconds wrk used) }; throws when any request failed.
 */
export function wrk(
  { url, method = 'GET', headers = {}, body = null, conns, dur, cpus = null },
  { dir },
) {
  const lua = join(dir, `wrk-${Math.random().toString(36).slice(2)}.lua`)
  const h = Object.entries(headers)
    .map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
    .join('\n')
  writeFileSync(
    lua,
    `wrk.method = ${JSON.stringify(method)}\n${h}\n${body ? `wrk.body = ${JSON.stringify(body)}` : ''}\n` +
      `done = function(summary, latency, requests)\n io.write(string.format("JSON {\\"rps\\":%f,\\"p50\\":%f,\\"p99\\":%f,\\"errors\\":%d,\\"non2xx\\":%d}\\n", summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, summary.errors.status))\nend\n`,
  )
  // A request over 5 s counts as failed (wrk's default, 2 s, is tight on a shared machine).
  const args = [
    '-t',
    String(Math.min(2, conns)),
    '-c',
    String(conns),
    '-d',
    `${dur}s`,
    '--timeout',
    '5s',
    '-s',
    lua,
    url,
  ]
  const { stdout: out, cpu } = measured(...pinned(cpus, 'wrk', args))
  const r = { ...JSON.parse(out.match(/JSON (.*)/)[1]), cpu }
  // A failed request is a failed benchmark: its figures would measure errors, not work.
  if (r.errors || r.non2xx)
    throw new Error(`wrk ${method} ${url}: ${r.errors} socket errors, ${r.non2xx} non-2xx answers`)
  return r
}

/**
 * Runs `program` with `args` to its end; returns its standard output and the CPU seconds (user and
 * system) it and its children used, read from the reaping shell's own accounting.
 */
export function measured(program, args) {
  const script = '"$@"; s=$?; printf "\\nCPUSTAT %s\\n" "$(cat /proc/$$/stat)"; exit $s'
  const out = execFileSync('sh', ['-c', script, 'sh', program, ...args], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  })
  const at = out.lastIndexOf('\nCPUSTAT ')
  const stat = out.slice(at + 9)
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // Fields 16 and 17 of proc(5): cutime and cstime (here counted from field 3).
  return { stdout: out.slice(0, at), cpu: (Number(f[13]) + Number(f[14])) / TICKS }
}

/**
 * CPU seconds the whole machine has been busy so far, every CPU together (user, nice, system,
 * interrupts; not idle, I/O wait or time stolen by the hypervisor).
 */
export function machineBusy() {
  const f = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number)
  return (f[0] + f[1] + f[2] + f[5] + f[6]) / TICKS
}

/** CPU seconds a PostgreSQL cluster has used so far: its postmaster and every backend, live or gone. */
export function postgresCpu(pgData) {
  const pm = postmasterPid(pgData)
  return cpuSeconds(pm, { reaped: true }) + childrenOf(pm).reduce((s, p) => s + cpuSeconds(p), 0)
}

/** The postmaster's pid of the PostgreSQL data directory `pgData`. */
export function postmasterPid(pgData) {
  return Number(readFileSync(join(pgData, 'postmaster.pid'), 'utf8').split('\n')[0])
}

/** `[program, args]` to run on the CPUs `cpus` (taskset's list), or anywhere when null. */
export function pinned(cpus, program, args) {
  return cpus === null ? [program, args] : ['taskset', ['-c', cpus, program, ...args]]
}

/** Moves a running process, every thread of it, to the CPUs `cpus` (taskset's list). */
export function pin(pid, cpus) {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' })
}

const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100

/**
 * CPU seconds (user + system) a process has used so far; 0 when it is gone. `reaped` adds what
 * its children that have exited used (a postmaster's finished backends).
 */
export function cpuSeconds(pid, { reaped = false } = {}) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // Fields 14–17 of proc(5): utime, stime, cutime, cstime (here counted from field 3).
    return (Number(f[11]) + Number(f[12]) + (reaped ? Number(f[13]) + Number(f[14]) : 0)) / TICKS
  } catch {
    return 0
  }
}

/** The pids whose parent is `ppid` (a PostgreSQL postmaster's backends and workers). */
export function childrenOf(ppid) {
  const pids = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === ppid)
        pids.push(Number(name))
    } catch {
      // gone
    }
  }
  return pids
}

/** A process's resident memory in KB. */
export function rssKb(pid) {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(s.match(/VmRSS:\s+(\d+)/)[1])
}

/**
 * A process's peak RSS while `fn` runs; returns [result, peak MB]. The kernel's own high-water
 * mark (VmHWM, reset through clear_refs) where it can be reset, so that a load run synchronously
 * counts too; else samples every 50 ms.
 */
export async function withPeakRss(pid, fn) {
  let hwm = false
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    hwm = true
  } catch {
    // not ours to reset: sampled instead
  }
  let peak = rssKb(pid)
  const t = setInterval(() => {
    try {
      peak = Math.max(peak, rssKb(pid))
    } catch {}
  }, 50)
  try {
    const r = await fn()
    if (hwm)
      peak = Math.max(
        peak,
        Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/)[1]),
      )
    return [r, round(peak / 1024)]
  } finally {
    clearInterval(t)
  }
}
