// The testing workbench's figures for docs/BENCHMARKS.md, on the shop: a branch made (the copy,
// and the request that makes it), a snapshot saved and restored, a snapshot folder exported and
// imported, `exec`'s overhead (a command that does nothing, with the project's data and with a
// throwaway one), `test db` on the shop's pgTAP files and `db reset` beside them. Medians of a
// few runs. Writes workbench.json and workbench-table.md; `--quick` runs small on a debug build.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startGateway } from '../tests/support/gateway.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const quick = process.argv.includes('--quick')
const profile = process.env.BENCH_PROFILE ?? (quick ? 'debug' : 'release')
const binary = join(root, 'target', profile, 'supagate')
const N = quick ? 3 : 15
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const round = (x) => Math.round(x * 10) / 10
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
const dataDir = ['--data-dir', join(scratch, 'data')]
timed([...dataDir, 'db', 'reset'])
const exec = [],
  fresh = []
for (let i = 0; i < Math.min(N, 5); i++) {
  reset.push(timed([...dataDir, 'db', 'reset']))
  exec.push(timed([...dataDir, 'exec', '--', 'true']))
  fresh.push(timed(['exec', '--fresh', '--', 'true']))
}
rmSync(scratch, { recursive: true, force: true })

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
`
writeFileSync(join(dir, 'workbench-table.md'), table)
console.log(table)
