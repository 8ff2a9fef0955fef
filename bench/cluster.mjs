// Scale-out figures (issue 17), on the topology of tests/cluster/topology.mjs: requests/s and CPU
// per request with 1 and 3 replicas behind HAProxy (and 1 replica without it), the failover gap
// when a replica is killed under load, and object throughput on SeaweedFS against local files.
// Writes cluster.json and cluster-table.md (included in BENCHMARKS.md); `--quick` runs briefly.
// The replicas run SUPAGATE_BIN (bench/run sets the build it benchmarks).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startCluster } from '../tests/cluster/topology.mjs'
import { loadWithKill } from '../tests/cluster/load.mjs'
import { startGateway } from '../tests/support/gateway.mjs'
import { startSeaweed } from '../tests/support/seaweed.mjs'
import { round, wrk as runWrk, cpuSeconds, postgresCpu } from './lib.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const quick = process.argv.includes('--quick')
const DUR = quick ? 1 : 15
const CONNS = 32
const log = (...a) => console.error('[cluster]', ...a)
const work = mkdtempSync(join(tmpdir(), 'supagate-cluster-bench-'))
chmodSync(work, 0o755)
const wrk = (o) => runWrk({ dur: DUR, conns: CONNS, ...o }, { dir: work })
const results = {
  date: new Date().toISOString(),
  quick,
  binary: process.env.SUPAGATE_BIN ?? 'target/debug/supagate',
  throughput: [],
  failover: null,
  objects: [],
}

// One client address drives the whole load: its fair share of each pool is the pool.
const REPLICA_ENV = { MAX_CLIENT_QUERIES: '0' }

/** CPU seconds used so far by the replicas, HAProxy and PostgreSQL (postmaster and backends). */
function cpuNow(cluster, pgData) {
  return {
    gateway: cluster.replicas.reduce((s, r) => s + cpuSeconds(r.pid), 0),
    haproxy: cpuSeconds(cluster.haproxy.pid),
    postgres: postgresCpu(pgData),
  }
}

async function measure(cluster, url, label, requests) {
  const pgData = join(cluster.dir, 'pg')
  for (const q of requests) {
    wrk({ url: url + q.path, headers: q.headers, dur: quick ? 1 : 3 }) // warm the caches of every replica
    const before = cpuNow(cluster, pgData)
    const r = wrk({ url: url + q.path, headers: q.headers })
    const after = cpuNow(cluster, pgData)
    const n = r.rps * DUR
    const us = (k) => round(((after[k] - before[k]) / n) * 1e6, 0)
    results.throughput.push({
      setup: label,
      request: q.name,
      rps: round(r.rps, 0),
      p50_ms: round(r.p50, 2),
      p99_ms: round(r.p99, 2),
      errors: r.errors + r.non2xx,
      cpu_us_per_request: {
        gateway: us('gateway'),
        haproxy: url === cluster.url ? us('haproxy') : 0,
        postgres: us('postgres'),
      },
    })
    log(label, q.name, round(r.rps, 0), 'req/s')
  }
}

async function throughput(replicas) {
  const dir = join(work, `t${replicas}`)
  const cluster = await startCluster({ dir, replicas, env: REPLICA_ENV })
  try {
    await cluster.settled()
    const auth = { apikey: cluster.anonKey, authorization: `Bearer ${cluster.anonKey}` }
    const [{ id, category_id }] = await (
      await fetch(
        `${cluster.url}/rest/v1/products?select=id,category_id&category_id=not.is.null&limit=1`,
        { headers: auth },
      )
    ).json()
    const requests = [
      { name: 'one product by id', path: `/rest/v1/products?select=*&id=eq.${id}`, headers: auth },
      {
        name: 'category listing',
        path: `/rest/v1/products?select=*&is_available=eq.true&category_id=eq.${category_id}&order=name.asc`,
        headers: auth,
      },
    ]
    await measure(
      cluster,
      cluster.url,
      `${replicas} replica${replicas > 1 ? 's' : ''} behind HAProxy`,
      requests,
    )
    if (replicas === 1)
      await measure(cluster, cluster.replicas[0].url, '1 replica, no balancer', requests)
    if (replicas === 3) results.failover = await failover(cluster)
  } finally {
    await cluster.stop()
  }
}

/** Mixed reads and writes through HAProxy; one replica is killed with SIGKILL a third of the way in. */
async function failover(cluster) {
  const runMs = quick ? 3000 : 10_000
  const {
    requests: done,
    killedAt,
    stored,
  } = await loadWithKill(cluster, {
    victim: cluster.replicas[1],
    workers: 16,
    runMs,
    killAt: runMs / 3,
    writeEvery: 4,
  })
  const failed = done.filter((d) => !d.ok)
  const around = done.filter((d) => d.end >= killedAt && d.start <= killedAt + 3000)
  const steady = done
    .filter((d) => d.end < killedAt)
    .map((d) => d.end - d.start)
    .sort((a, b) => a - b)
  const f = {
    requests: done.length,
    writes_acknowledged: done.filter((d) => d.write && d.ok).length,
    acknowledged_writes_lost: done.filter((d) => d.write && d.ok && !stored.has(d.id)).length,
    failed_reads: failed.filter((d) => !d.write).length,
    failed_writes: failed.filter((d) => d.write).length,
    failed_writes_applied: failed.filter((d) => d.write && stored.has(d.id)).length,
    steady_p99_ms: round(steady[Math.floor(steady.length * 0.99)] ?? NaN, 1),
    longest_wait_around_kill_ms: round(Math.max(...around.map((d) => d.end - d.start)), 1),
  }
  log('failover', JSON.stringify(f))
  return f
}

/** Upload and download throughput of one gateway, objects on local files or in SeaweedFS. */
async function objects(store) {
  const weed = store === 'SeaweedFS (S3)' ? await startSeaweed() : null
  const gw = await startGateway({ binary: process.env.SUPAGATE_BIN, env: weed ? weed.env : {} })
  const h = { apikey: gw.serviceKey, authorization: `Bearer ${gw.serviceKey}` }
  try {
    await fetch(`${gw.url}/storage/v1/bucket`, {
      method: 'POST',
      headers: { ...h, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', public: false }),
    })
    for (const [size, count] of quick
      ? [
          [64 << 10, 10],
          [8 << 20, 1],
        ]
      : [
          [64 << 10, 300],
          [8 << 20, 10],
        ]) {
      const body = Buffer.alloc(size, 7)
      const run = async (fn) => {
        const t = performance.now()
        for (let i = 0; i < count; i++) await fn(i)
        return (performance.now() - t) / 1000
      }
      const up = await run(async (i) => {
        const res = await fetch(`${gw.url}/storage/v1/object/bench/o${size}-${i}`, {
          method: 'POST',
          headers: { ...h, 'content-type': 'application/octet-stream' },
          body,
        })
        if (!res.ok) throw new Error(`upload ${res.status} ${await res.text()}`)
      })
      const down = await run(async (i) => {
        const res = await fetch(`${gw.url}/storage/v1/object/authenticated/bench/o${size}-${i}`, {
          headers: h,
        })
        const got = await res.arrayBuffer()
        if (!res.ok || got.byteLength !== size) throw new Error(`download ${res.status}`)
      })
      const mb = (size * count) / 2 ** 20
      const row = {
        store,
        object: size >= 1 << 20 ? `${size >> 20} MB` : `${size >> 10} KB`,
        count,
        upload_per_s: round(count / up, 0),
        download_per_s: round(count / down, 0),
        upload_mb_s: round(mb / up),
        download_mb_s: round(mb / down),
      }
      results.objects.push(row)
      log('objects', JSON.stringify(row))
    }
  } finally {
    await gw.stop()
    await weed?.stop()
  }
}

try {
  // Quick mode (CI proving the harness) measures the three-replica topology only: one replica
  // is the same code with fewer processes.
  if (!quick) await throughput(1)
  await throughput(3)
  await objects('local files')
  await objects('SeaweedFS (S3)')
} finally {
  rmSync(work, { recursive: true, force: true })
}

const out = quick ? join(root, 'target', 'bench-quick') : join(root, 'docs')
mkdirSync(out, { recursive: true })
writeFileSync(join(out, 'cluster.json'), `${JSON.stringify(results, null, 2)}\n`)
const fo = results.failover
const table = `Three replicas, SeaweedFS and HAProxy with PostgreSQL on this same 2-core machine, as
\`scripts/cluster\` runs them (tests/cluster/topology.mjs). wrk, ${CONNS} connections, ${DUR} s per row.
CPU per request is the CPU time the processes used during the run divided by the requests served.

| setup | request | req/s | p50 ms | p99 ms | errors | CPU µs/request: gateways | HAProxy | PostgreSQL |
|---|---|---|---|---|---|---|---|---|
${results.throughput.map((r) => `| ${r.setup} | ${r.request} | ${r.rps} | ${r.p50_ms} | ${r.p99_ms} | ${r.errors} | ${r.cpu_us_per_request.gateway} | ${r.cpu_us_per_request.haproxy} | ${r.cpu_us_per_request.postgres} |`).join('\n')}

On two cores, three replicas cannot serve more than one: the cores are already shared by the
client, the balancer, PostgreSQL and the gateway. What the rows show is the cost of the topology
(the balancer's hop and CPU, three pools of connections), not the gain that more machines bring.

**Failover** (16 clients, 3 reads to 1 write, one replica killed with SIGKILL a third of the way
in): ${fo.requests} requests, ${fo.writes_acknowledged} acknowledged writes, **${fo.acknowledged_writes_lost} acknowledged writes lost**,
${fo.failed_reads} failed reads (HAProxy resends a read whose replica died), ${fo.failed_writes} failed writes
(in flight on the killed replica; ${fo.failed_writes_applied} of them had committed). The longest any request
waited around the kill: **${fo.longest_wait_around_kill_ms} ms** (p99 before the kill: ${fo.steady_p99_ms} ms);
HAProxy's health checks (every 500 ms, down after 2 failures) take the replica out within about a
second, and connections refused before that are retried on another replica.

**Objects** (one gateway, one client, sequential, private bucket):

| store | object | count | uploads/s | downloads/s | upload MB/s | download MB/s |
|---|---|---|---|---|---|---|
${results.objects.map((r) => `| ${r.store} | ${r.object} | ${r.count} | ${r.upload_per_s} | ${r.download_per_s} | ${r.upload_mb_s} | ${r.download_mb_s} |`).join('\n')}
`
writeFileSync(join(out, 'cluster-table.md'), table)
log(`wrote ${join(out, 'cluster.json')} and cluster-table.md`)
