// The testing workbench's figures for docs/BENCHMARKS.md, on the shop: a branch made (the copy,
// and the request that makes it), a snapshot saved and restored, a snapshot folder exported and
// imported, `exec`'s overhead (a command that does nothing, with the project's data and with a
// throwaway one), `test db` on the shop's pgTAP files and `db reset` beside them. Medians of a
// few runs. Then `db diff` (the shop's migrations against its database, and the same schema as
// declared files, unchanged and with a file edited between runs; BENCH_DIFF_PROJECTS=DIR:DIR adds
// other project folders). Writes workbench.json and workbench-table.md; `--quick` runs small on a
// debug build.
import { execFileSync, spawnSync } from 'node:child_process'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startGateway } from '../tests/support/gateway.mjs'
import { median, round, spread } from './lib.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const quick = process.argv.includes('--quick')
const profile = process.env.BENCH_PROFILE ?? (quick ? 'debug' : 'release')
const binary = join(root, 'target', profile, 'supagate')
const N = quick ? 3 : 15
const env = {
  ...process.env,
  DATABASE_URL: '',
  RUST_LOG: 'error',
  SUPAGATE_CACHE_DIR: join(root, 'target/tmp/pg-cache'),
}

/** Wall milliseconds of one run of the binary. */
function timed(args) {
  const t0 = process.hrtime.bigint()
  execFileSync(binary, ['--workdir', root, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  return Number(process.hrtime.bigint() - t0) / 1e6
}

const gw = await startGateway({ binary })
const headers = { apikey: gw.serviceKey, 'content-type': 'application/json' }
const copy = [],
  made = []
for (let i = 0; i < N; i++) {
  const t0 = process.hrtime.bigint()
  const res = await fetch(`${gw.url}/_supagate/v1/branches`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: `bench${i}` }),
  })
  const body = await res.json()
  made.push(Number(process.hrtime.bigint() - t0) / 1e6)
  copy.push(body.ms)
  await fetch(`${gw.url}/_supagate/v1/branches/bench${i}`, { method: 'DELETE', headers })
}
const onData = ['--data-dir', gw.dataDir]
const save = [],
  restore = [],
  exported = [],
  imported = [],
  testDb = [],
  reset = []
const folder = mkdtempSync(join(tmpdir(), 'supagate-bench-snapshot-'))
for (let i = 0; i < Math.min(N, 5); i++) {
  save.push(timed([...onData, 'snapshot', 'save', 'bench']))
  restore.push(timed([...onData, 'snapshot', 'restore', 'bench']))
  exported.push(timed([...onData, 'snapshot', 'export', folder]))
  imported.push(timed([...onData, 'snapshot', 'import', folder]))
  testDb.push(timed([...onData, 'test', 'db']))
}
await gw.stop()
rmSync(folder, { recursive: true, force: true })
const scratch = mkdtempSync(join(tmpdir(), 'supagate-bench-exec-'))
// Ports the kernel picks, not the project's: the CLI's (54321–54324) may be taken by a gateway a
// developer runs, or by whatever else runs beside the benchmark.
const anyPorts = ['--port', '0', '--db-port', '0', '--mail-port', '0', '--studio-port', '0']
const dataDir = ['--data-dir', join(scratch, 'data'), ...anyPorts]
timed([...dataDir, 'db', 'reset'])
const exec = [],
  fresh = []
for (let i = 0; i < Math.min(N, 5); i++) {
  reset.push(timed([...dataDir, 'db', 'reset']))
  exec.push(timed([...dataDir, 'exec', '--', 'true']))
  fresh.push(timed([...anyPorts, 'exec', '--fresh', '--', 'true']))
}
rmSync(scratch, { recursive: true, force: true })

// ------------------------------------------------------------------ db diff (issue 47)
/** A copy of a project's supabase/ folder (its data directory left out) in a new folder. */
function projectCopy(from) {
  const dir = mkdtempSync(join(tmpdir(), 'supagate-bench-diff-'))
  cpSync(join(from, 'supabase'), join(dir, 'supabase'), {
    recursive: true,
    filter: (src) => !src.includes(`${join(from, 'supabase', '.temp')}`),
  })
  return dir
}
/** Wall milliseconds of one `db diff` in `dir`, how many declared files it applied, and those files. */
function diffIn(dir) {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(binary, ['--workdir', dir, 'db', 'diff'], {
    env: { ...env, RUST_LOG: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  })
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.status !== 0) throw new Error(`db diff in ${dir} failed (${r.status}): ${r.stderr}`)
  const applied = /(\d+) of (\d+) files applied/.exec(r.stderr)
  // The declared files under supabase/schemas, in the order the command applies them (its
  // config's schema_paths, else sorted), as it lists them.
  const files = [...r.stderr.matchAll(/^ • (supabase\/schemas\/\S+\.sql)$/gm)].map((m) =>
    join(dir, m[1]),
  )
  return { ms, applied: applied ? `${applied[1]} of ${applied[2]}` : null, files }
}
/** Runs `db diff` `n` times, `edit(i)` before each (none: the folder unchanged). */
function diffRuns(dir, n, edit) {
  const ms = []
  let applied = null
  for (let i = 0; i < n; i++) {
    edit?.(i)
    const r = diffIn(dir)
    ms.push(r.ms)
    applied = r.applied ?? applied
  }
  return { ...spread(ms), applied }
}
/** `db diff` runs with `file` edited before each (a new table each time: no run finds its files in the diff cache), `file` restored after. */
function editedRuns(dir, file) {
  const text = readFileSync(file, 'utf8')
  const edit = (i) =>
    writeFileSync(file, `${text}\ncreate table public.bench_diff_${i} (id int primary key);\n`)
  try {
    return diffRuns(dir, DN, edit)
  } finally {
    writeFileSync(file, text)
  }
}
const DN = Math.min(N, 7)
const diffs = []
{
  // The shop as it is: its migrations (kept built) against its database.
  const dir = projectCopy(root)
  const first = diffIn(dir).ms
  diffs.push({
    project: 'the shop',
    case: 'first run on a new folder (cluster, migrations)',
    ...spread([first]),
  })
  diffs.push({ project: 'the shop', case: 'unchanged', ...diffRuns(dir, DN) })
  // The same schema declared: each migration a file under supabase/schemas, none left to migrate.
  mkdirSync(join(dir, 'supabase', 'schemas'))
  for (const f of readdirSync(join(dir, 'supabase', 'migrations')))
    renameSync(join(dir, 'supabase', 'migrations', f), join(dir, 'supabase', 'schemas', f))
  const files = diffIn(dir).files
  diffs.push({ project: 'the shop, declared', case: 'unchanged', ...diffRuns(dir, DN) })
  diffs.push({
    project: 'the shop, declared',
    case: 'its first file edited before each run',
    ...editedRuns(dir, files[0]),
  })
  diffs.push({
    project: 'the shop, declared',
    case: 'its last file edited before each run',
    ...editedRuns(dir, files.at(-1)),
  })
  rmSync(dir, { recursive: true, force: true })
}
for (const from of (process.env.BENCH_DIFF_PROJECTS ?? '').split(':').filter(Boolean)) {
  const dir = projectCopy(from)
  const name = from.replace(/\/+$/, '').split('/').at(-1)
  const first = diffIn(dir).ms
  diffs.push({
    project: name,
    case: 'first run on a new folder (cluster, migrations)',
    ...spread([first]),
  })
  diffs.push({ project: name, case: 'unchanged', ...diffRuns(dir, DN) })
  const files = diffIn(dir).files
  if (files.length) {
    diffs.push({
      project: name,
      case: 'its first declared file edited before each run',
      ...editedRuns(dir, files[0]),
    })
    diffs.push({
      project: name,
      case: 'its last declared file edited before each run',
      ...editedRuns(dir, files.at(-1)),
    })
  }
  rmSync(dir, { recursive: true, force: true })
}

const out = {
  profile,
  branchCopyMs: round(median(copy)),
  branchRequestMs: round(median(made)),
  snapshotSaveMs: round(median(save)),
  snapshotRestoreMs: round(median(restore)),
  folderExportMs: round(median(exported)),
  folderImportMs: round(median(imported)),
  execMs: round(median(exec)),
  execFreshMs: round(median(fresh)),
  testDbMs: round(median(testDb)),
  dbResetMs: round(median(reset)),
  runs: N,
  dbDiff: { runs: DN, rows: diffs },
}
const dir = quick ? join(root, 'target', 'bench-quick') : join(root, 'docs')
mkdirSync(dir, { recursive: true })
writeFileSync(join(dir, 'workbench.json'), `${JSON.stringify(out, null, 2)}\n`)
const table = `| measure (the shop, median) | supagate | goal / the CLI |
|---|---|---|
| a branch: the database copied (\`POST /_supagate/v1/branches\`, server side) | ${out.branchCopyMs} ms | < 50 ms |
| a branch: the whole request, as a test worker waits for it | ${out.branchRequestMs} ms | |
| \`snapshot save\` / \`snapshot restore\` (the command, start to end) | ${out.snapshotSaveMs} / ${out.snapshotRestoreMs} ms | well under 1 s; \`supabase db reset\` ≈ 10 s |
| \`snapshot export DIR\` / \`snapshot import DIR\` (pg_dump's archive and the objects) | ${out.folderExportMs} / ${out.folderImportMs} ms | |
| \`exec -- true\`: start, run nothing, stop (the project's data) | ${out.execMs} ms | |
| \`exec --fresh -- true\`: a new cluster, migrations and seed, run nothing, stop | ${out.execFreshMs} ms | |
| \`test db\`: the shop's pgTAP files against the running gateway | ${out.testDbMs} ms | |
| \`db reset\` | ${out.dbResetMs} ms | \`supabase db reset\` ≈ 10 s |

\`db diff\` (wall time of the command, ${DN} runs: min / median / max; goal < 1 s, the CLI's shadow
database alone ≈ 15 s). "Declared" is the shop's schema with each migration moved to a file
under \`supabase/schemas\`; an edited file adds a table, so every run has a new schema to diff; the
declared files before the edited one stay committed to the kept copy and only the rest are applied.

| project | case | ms | declared files applied |
|---|---|---|---|
${out.dbDiff.rows.map((r) => `| ${r.project} | ${r.case} | ${r.min} / ${r.median} / ${r.max} | ${r.applied ?? ''} |`).join('\n')}
`
writeFileSync(join(dir, 'workbench-table.md'), table)
console.log(table)
