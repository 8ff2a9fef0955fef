// Edge Functions figures for docs/BENCHMARKS.md: a function's first request right after the
// gateway is ready (racing the gateway's own start of the project's functions) and once they are
// started, a Deno booted on request (after a crash: wall and CPU time), warm latency through the gateway against the same request sent
// straight to the function's Deno socket, and memory per warm function. Writes functions.json and
// functions-table.md (included in BENCHMARKS.md); `--quick` runs small on a debug build.
// The racing first request is measured on 5 gateways started one after the other (each on a new
// data directory, as a first start), with their start-to-ready times; the other figures on the
// last. SUPAGATE_BIN runs another binary than target/<profile>/supagate.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { join, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startGateway } from '../tests/support/gateway.mjs'
import { median, spread } from './lib.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const quick = process.argv.includes('--quick')
const profile = process.env.BENCH_PROFILE ?? (quick ? 'debug' : 'release')
const N = quick ? 200 : 2000
const RACES = quick ? 2 : 5
const binary = process.env.SUPAGATE_BIN ?? join(root, 'target', profile, 'supagate')

function call(opts) {
  return new Promise((res, rej) => {
    const t0 = process.hrtime.bigint()
    const req = http.request({ method: 'GET', ...opts }, (r) => {
      r.resume()
      r.on('end', () =>
        res({ status: r.statusCode, us: Number(process.hrtime.bigint() - t0) / 1000 }),
      )
    })
    req.on('error', rej)
    req.end()
  })
}
const p99 = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length * 0.99)]

// Each gateway's first request, sent as soon as it says it is ready (its functions are started
// from then on, or were started while it started).
const races = [],
  readies = []
let gw, agent
for (let i = 0; i < RACES; i++) {
  const t0 = process.hrtime.bigint()
  gw = await startGateway({ binary, workdir: join(root, 'tests/fixtures/functions') })
  readies.push(Number(process.hrtime.bigint() - t0) / 1e6)
  agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const at = new URL(gw.url)
  races.push(
    (await call({ host: at.hostname, port: at.port, path: '/functions/v1/open', agent })).us / 1000,
  )
  if (i < RACES - 1) {
    agent.destroy()
    await gw.stop()
  }
}
const u = new URL(gw.url)
const viaGateway = () => call({ host: u.hostname, port: u.port, path: '/functions/v1/open', agent })
const sockets = join(gw.dataDir, 'functions', 'sockets')
const socketPath = join(
  sockets,
  readdirSync(sockets).find((f) => f.startsWith('open-')),
)
const direct = () => call({ socketPath, path: '/open', headers: { host: 'localhost' } })

for (let i = 0; i < 200; i++) {
  await viaGateway()
  await direct()
}
const g = [],
  d = []
for (let i = 0; i < N; i++) {
  g.push((await viaGateway()).us)
  d.push((await direct()).us)
}
const pid = readdirSync('/proc')
  .filter((p) => /^\d+$/.test(p))
  .find((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(
        join('functions', 'open', 'index.ts'),
      )
    } catch {
      return false
    }
  })
const rssMb = pid
  ? Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]) / 1024
  : null
const bearer = { authorization: `Bearer ${gw.anonKey}` }
const fn = (name) =>
  call({ host: u.hostname, port: u.port, path: `/functions/v1/${name}`, headers: bearer })
// The gateway starts the project's functions with it: their first requests once they listen.
const t0 = Date.now()
while (!['echo', 'fail'].every((n) => readdirSync(sockets).some((f) => f.startsWith(`${n}-`)))) {
  if (Date.now() - t0 > 20000) throw new Error('echo and fail were not started with the gateway')
  await new Promise((r) => setTimeout(r, 20))
}
const colds = []
for (const name of ['echo', 'fail']) colds.push((await fn(name)).us / 1000)
// A Deno booted on request: `fail?crash` ends its process, the next request starts another.
/** CPU time (user + system, ms) of the newest Deno running `fail`. */
const failCpuMs = () => {
  const pids = readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(
          join('functions', 'fail', 'index.ts'),
        )
      } catch {
        return false
      }
    })
  const newest = pids.sort((a, b) => Number(b) - Number(a))[0]
  const fields = readFileSync(`/proc/${newest}/stat`, 'utf8').split(')')[1].trim().split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}
const boots = [],
  bootCpu = []
for (let i = 0; i < 5; i++) {
  await fn('fail?crash')
  boots.push((await fn('fail')).us / 1000)
  bootCpu.push(failCpuMs())
}
await gw.stop()
const out = {
  profile,
  coldFirstRequestMs: spread(races),
  startToReadyMs: spread(readies),
  coldOthersMs: colds.map((x) => Math.round(x * 10) / 10),
  bootOnRequestMs: spread(boots),
  bootOnRequestCpuMs: spread(bootCpu),
  warmGatewayMedianUs: Math.round(median(g)),
  warmGatewayP99Us: Math.round(p99(g)),
  warmDirectMedianUs: Math.round(median(d)),
  addedMedianUs: Math.round(median(g) - median(d)),
  warmFunctionRssMb: rssMb && Math.round(rssMb * 10) / 10,
  requests: N,
}
const dir = quick ? join(root, 'target', 'bench-quick') : join(root, 'docs')
mkdirSync(dir, { recursive: true })
writeFileSync(join(dir, 'functions.json'), `${JSON.stringify(out, null, 2)}\n`)
const table = `| measure | value | goal |
|---|---|---|
| first request of a function right after the gateway is ready, racing its start of the functions (\`open\`), ${RACES} new gateways min / median / max | ${out.coldFirstRequestMs.min} / ${out.coldFirstRequestMs.median} / ${out.coldFirstRequestMs.max} ms | < 100 ms (edge-runtime publishes 25–83 ms boots) |
| those gateways' start to ready (new data directory), min / median / max | ${out.startToReadyMs.min} / ${out.startToReadyMs.median} / ${out.startToReadyMs.max} ms | |
| first request of two more functions, started with the gateway (\`echo\`, \`fail\`) | ${out.coldOthersMs.join(' / ')} ms | < 100 ms |
| a Deno booted on request (after a crash), 5 boots min / median / max | ${out.bootOnRequestMs.min} / ${out.bootOnRequestMs.median} / ${out.bootOnRequestMs.max} ms | |
| its CPU time (Deno's boot and one request), min / median / max | ${out.bootOnRequestCpuMs.min} / ${out.bootOnRequestCpuMs.median} / ${out.bootOnRequestCpuMs.max} ms | |
| warm request through the gateway, median / p99 (${N} sequential, keep-alive) | ${out.warmGatewayMedianUs} / ${out.warmGatewayP99Us} µs | |
| the same request straight to the function's socket, median | ${out.warmDirectMedianUs} µs | |
| added by the gateway, median | ${out.addedMedianUs} µs | < 1000 µs |
| memory of a warm function (Deno's RSS) | ${out.warmFunctionRssMb} MB | |
`
writeFileSync(join(dir, 'functions-table.md'), table)
console.log(table)
