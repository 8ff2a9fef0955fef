// Vector search figures for docs/BENCHMARKS.md: supagate's pgvector (extensions/pgrx/vector) on
// 384-dimension embeddings, 10,000 and 100,000 of them, of two kinds: uniform random (the hardest
// case for a graph index: no structure to find) and clustered (100 centres, as embeddings of texts
// are). For each: an HNSW index's build time (m = 16, ef_construction = 64, pgvector's defaults),
// an IVFFlat index's (lists = rows / 1000, pgvector's advice), and per query, over 50 queries of the
// same kind, the median latency and recall@10 against exact search, for hnsw.ef_search 40 (the
// default), 100 and 200, and ivfflat.probes 1 and 10. Latency is measured inside PostgreSQL
// (clock_timestamp around each query in one PL/pgSQL loop), so it is the index's, not the client's;
// the searches run with enable_seqscan off, and whether the planner chooses the index on its own
// is reported (✓).
// Writes vector.json and vector-table.md; `--quick` runs 2,000 vectors of each kind.
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
const SIZES = quick ? [2000] : [10000, 100000]
const QUERIES = quick ? 10 : 50
const DIM = 384
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d

const project = mkdtempSync(join(tmpdir(), 'supagate-bench-vector-'))
mkdirSync(join(project, 'supabase/migrations'), { recursive: true })
writeFileSync(join(project, 'supabase/config.toml'), 'project_id = "bench-vector"\n')
writeFileSync(
  join(project, 'supabase/migrations/20240101000000_vector.sql'),
  'create extension if not exists vector with schema extensions;\n',
)
const gw = await startGateway({ workdir: project, binary })

/** Runs SQL as the owner; its output (unaligned, tuples only). */
const sql = (text) =>
  execFileSync(
    'psql',
    [
      gw.dbUrl,
      '-X',
      '-q',
      '-t',
      '-A',
      '-v',
      'ON_ERROR_STOP=1',
      '-c',
      'set search_path = public, extensions; set client_min_messages = warning',
      '-c',
      text,
    ],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    },
  ).trim()
/** Wall milliseconds of one statement (psql's start, ~10 ms, included: for builds of seconds). */
const timed = (text) => {
  const t0 = process.hrtime.bigint()
  sql(text)
  return Number(process.hrtime.bigint() - t0) / 1e6
}

/** A vector of `kind`: uniform in [-1, 1], or a random centre's coordinates plus noise. `i` keeps
 *  the subquery correlated (evaluated per row). */
const vectorOf = (kind, i) =>
  kind === 'uniform'
    ? `array(select random() * 2 - 1 from generate_series(1, ${DIM}) where ${i} >= 0)::vector(${DIM})`
    : `array(select c.v[d] + (random() - 0.5) * 0.6 from generate_series(1, ${DIM}) d where ${i} >= 0)::vector(${DIM})`

function load(kind, n) {
  const from = (i, count) =>
    kind === 'uniform'
      ? `generate_series(1, ${count}) ${i}`
      : `(select ${i}, floor(random() * 100) k from generate_series(1, ${count}) ${i}) r join centres c on c.c = r.k`
  sql(`drop table if exists items, queries, centres, timings;
    select setseed(0.42);
    create table centres as select c, array(select random() * 2 - 1 from generate_series(1, ${DIM}) where c >= 0) v from generate_series(0, 99) c;
    create table items (id int primary key, embedding vector(${DIM}));
    insert into items select i, ${vectorOf(kind, 'i')} from ${from('i', n)};
    create table queries (q int primary key, embedding vector(${DIM}));
    insert into queries select q, ${vectorOf(kind, 'q')} from ${from('q', QUERIES)};
    create table timings (method text, q int, ms float8, ids int[]);`)
  sql('vacuum analyze items')
}

/** Runs every query with the given settings; the median latency and the recall@10 against the
 *  exact answers (method 'exact'). */
function search(method, settings) {
  sql(`do $$ declare r record; t0 timestamptz; found int[]; begin
      ${settings}
      for r in select * from queries order by q loop
        t0 := clock_timestamp();
        found := array(select id from items order by embedding <=> r.embedding limit 10);
        insert into timings values ('${method}', r.q, extract(epoch from clock_timestamp() - t0) * 1000, found);
      end loop;
    end $$`)
  const [ms, recall] = sql(`select percentile_cont(0.5) within group (order by t.ms),
      avg((select count(*) from unnest(t.ids) i where i = any(e.ids)) / 10.0)
    from timings t join timings e on e.q = t.q and e.method = 'exact' where t.method = '${method}'`).split(
    '|',
  )
  return { ms: round(Number(ms), 2), recall: round(Number(recall), 3) }
}

/** Whether the planner picks the index for a nearest-neighbour query as apps write it. */
function usesIndex(name) {
  const v = sql('select embedding::text from queries order by q limit 1')
  return sql(
    `explain (costs off) select id from items order by embedding <=> '${v}' limit 10`,
  ).includes(`Index Scan using ${name}`)
}

const rows = []
for (const n of SIZES) {
  for (const kind of ['uniform', 'clustered']) {
    const t0 = Date.now()
    load(kind, n)
    const exact = search('exact', 'set local enable_indexscan = off;')
    const hnswBuildMs = timed(
      `set maintenance_work_mem = '1GB'; create index items_hnsw on items using hnsw (embedding vector_cosine_ops)`,
    )
    const hnswChosen = usesIndex('items_hnsw')
    const hnsw = {}
    for (const ef of [40, 100, 200])
      hnsw[ef] = search(
        `hnsw${ef}`,
        `set local enable_seqscan = off; set local hnsw.ef_search = ${ef};`,
      )
    sql('drop index items_hnsw')
    const lists = Math.max(1, Math.round(n / 1000))
    const ivfflatBuildMs = timed(
      `set maintenance_work_mem = '1GB'; create index items_ivfflat on items using ivfflat (embedding vector_cosine_ops) with (lists = ${lists})`,
    )
    const ivfflatChosen = usesIndex('items_ivfflat')
    const ivfflat = {}
    for (const probes of [1, 10])
      ivfflat[probes] = search(
        `ivfflat${probes}`,
        `set local enable_seqscan = off; set local ivfflat.probes = ${probes};`,
      )
    sql('drop index items_ivfflat')
    const row = {
      n,
      kind,
      exact,
      hnswBuildMs: Math.round(hnswBuildMs),
      hnswChosen,
      hnsw,
      lists,
      ivfflatBuildMs: Math.round(ivfflatBuildMs),
      ivfflatChosen,
      ivfflat,
    }
    rows.push(row)
    console.log(JSON.stringify(row), `(${Math.round((Date.now() - t0) / 1000)} s)`)
  }
}
await gw.stop()
rmSync(project, { recursive: true, force: true })

const out = { dim: DIM, queries: QUERIES, rows }
const dir = quick ? join(root, 'target', 'bench-quick') : join(root, 'docs')
mkdirSync(dir, { recursive: true })
writeFileSync(join(dir, 'vector.json'), `${JSON.stringify(out, null, 2)}\n`)
const fmt = (r) => `${r.ms} ms, ${r.recall}`
const table = `| ${DIM}-d, cosine, ${QUERIES} queries (median latency, recall@10) | exact (no index) | HNSW build | hnsw ef_search 40 | 100 | 200 | IVFFlat build (lists) | ivfflat probes 1 | 10 |
|---|---|---|---|---|---|---|---|---|
${rows
  .map(
    (r) =>
      `| ${r.n.toLocaleString('en')} ${r.kind} | ${fmt(r.exact)} | ${round(r.hnswBuildMs / 1000)} s${r.hnswChosen ? ' ✓' : ''} | ${fmt(r.hnsw[40])} | ${fmt(r.hnsw[100])} | ${fmt(r.hnsw[200])} | ${round(r.ivfflatBuildMs / 1000)} s (${r.lists})${r.ivfflatChosen ? ' ✓' : ''} | ${fmt(r.ivfflat[1])} | ${fmt(r.ivfflat[10])} |`,
  )
  .join('\n')}
`
writeFileSync(join(dir, 'vector-table.md'), table)
console.log(table)
