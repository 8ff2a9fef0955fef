// Edge Functions figures for docs/BENCHMARKS.md: cold start of a function (its first request
// after the gateway is ready), warm latency through the gateway against the same request sent
// straight to the function's Deno socket, and memory per warm function. Writes functions.json and
// functions-table.md (included in BENCHMARKS.md); `--quick` runs small on a debug build.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { join, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startGateway } from '../tests/support/gateway.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const quick = process.argv.includes('--quick')
const profile = process.env.BENCH_PROFILE ?? (quick ? 'debug' : 'release')
const N = quick ? 200 : 2000
const gw = await startGateway({ binary: join(root, 'target', profile, 'supagate'), workdir: join(root, 'tests/fixtures/functions') })
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })

function call(opts) {
  return new Promise((res, rej) => {
    const t0 = process.hrtime.bigint()
    const req = http.request({ method: 'GET', ...opts }, (r) => {
      r.resume()
      r.on('end', () => res({ status: r.statusCode, us: Number(process.hrtime.bigint() - t0) / 1000 }))
    })
    req.on('error', rej)
    req.end()
  })
}
const u = new URL(gw.url)
const viaGateway = () => call({ host: u.hostname, port: u.port, path: '/functions/v1/open', agent })
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const p99 = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length * 0.99)]

const cold = await viaGateway()
const sockets = join(gw.dataDir, 'functions', 'sockets')
const socketPath = join(sockets, readdirSync(sockets).find((f) => f.startsWith('open-')))
const direct = () => call({ socketPath, path: '/open', headers: { host: 'localhost' } })

for (let i = 0; i < 200; i++) {
  await viaGateway()
  await direct()
}
const g = [], d = []
for (let i = 0; i < N; i++) {
  g.push((await viaGateway()).us)
  d.push((await direct()).us)
}
const pid = readdirSync('/proc').filter((p) => /^\d+$/.test(p)).find((p) => {
  try {
    return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(join('functions', 'open', 'index.ts'))
  } catch {
    return false
  }
})
const rssMb = pid ? Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]) / 1024 : null
const colds = []
for (const name of ['echo', 'fail']) {
  const r = await call({ host: u.hostname, port: u.port, path: `/functions/v1/${name}`, headers: { authorization: `Bearer ${gw.anonKey}` } })
  colds.push(r.us / 1000)
}
await gw.stop()
const out = {
  profile,
  coldFirstRequestMs: Math.round(cold.us / 100) / 10,
  coldOthersMs: colds.map((x) => Math.round(x * 10) / 10),
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
| cold start: a function's first request, Deno started and listening (\`open\`) | ${out.coldFirstRequestMs} ms | < 100 ms (edge-runtime publishes 25–83 ms boots) |
| cold start of two more fixture functions (\`echo\`, \`fail\`) | ${out.coldOthersMs.join(' / ')} ms | |
| warm request through the gateway, median / p99 (${N} sequential, keep-alive) | ${out.warmGatewayMedianUs} / ${out.warmGatewayP99Us} µs | |
| the same request straight to the function's socket, median | ${out.warmDirectMedianUs} µs | |
| added by the gateway, median | ${out.addedMedianUs} µs | < 1000 µs |
| memory of a warm function (Deno's RSS) | ${out.warmFunctionRssMb} MB | |
`
writeFileSync(join(dir, 'functions-table.md'), table)
console.log(table)
