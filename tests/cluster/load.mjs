// Mixed reads and writes through the balancer while one replica is killed with SIGKILL: what the
// cluster test checks and the cluster benchmark measures. Each write carries an id made by the
// client, so that what PostgreSQL stored can be compared with what was acknowledged.
import { randomUUID } from 'node:crypto'
import { sleep, until } from '../support/wait.mjs'

/**
 * `workers` clients send requests for `runMs`; one in `writeEvery` is an insert, the others read
 * products. `victim` is killed `killAt` ms in. Returns every request ({ write, id, ok, status,
 * error, start, end } in ms from the start), when the kill was sent, and the ids stored.
 */
export async function loadWithKill(cluster, { victim, workers, runMs, killAt, writeEvery }) {
  cluster.pg.sql(
    'create table if not exists public.load_writes (id uuid primary key, worker int not null, at timestamptz not null default now()); ' +
      'grant insert, select on public.load_writes to service_role;',
  )
  const svc = { apikey: cluster.serviceKey, authorization: `Bearer ${cluster.serviceKey}` }
  // Until every replica's schema cache knows the table.
  for (const r of cluster.replicas) {
    await until(
      async () =>
        (await fetch(`${r.url}/rest/v1/load_writes?limit=0`, { headers: svc })).status === 200,
      `${r.name} knowing load_writes`,
    )
  }
  const t0 = performance.now()
  const requests = []
  let killedAt = null
  const killer = sleep(killAt).then(() => {
    killedAt = performance.now() - t0
    victim.kill()
  })
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (let i = 0; performance.now() - t0 < runMs; i++) {
        const write = (i + worker) % writeEvery === 0
        const id = randomUUID()
        const start = performance.now() - t0
        let status = -1
        let error = null
        try {
          const res = write
            ? await fetch(`${cluster.url}/rest/v1/load_writes`, {
                method: 'POST',
                headers: { ...svc, 'content-type': 'application/json', prefer: 'return=minimal' },
                body: JSON.stringify({ id, worker }),
              })
            : await fetch(`${cluster.url}/rest/v1/products?select=id,name&limit=10`, {
                headers: svc,
              })
          await res.arrayBuffer()
          status = res.status
        } catch (e) {
          error = e.cause?.code ?? e.message
        }
        const ok = write ? status === 201 : status === 200
        requests.push({ write, id, ok, status, error, start, end: performance.now() - t0 })
      }
    }),
  )
  await killer
  const stored = new Set(
    cluster.pg.sql('select id from public.load_writes').split('\n').filter(Boolean),
  )
  return { requests, killedAt, stored }
}
