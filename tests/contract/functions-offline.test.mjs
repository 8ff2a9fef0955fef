// An Edge Function's `npm:` modules are downloaded once, into the project's data directory: the
// next start serves the function with the registry gone. The registry is a small one of this
// test's own on 127.0.0.1 (Deno reads NPM_CONFIG_REGISTRY), holding one package.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startGateway } from '../support/gateway.mjs'

const dir = mkdtempSync(join(tmpdir(), 'supagate-npm-'))
chmodSync(dir, 0o755)
after(() => rmSync(dir, { recursive: true, force: true }))

/** The package `greet-fixture@1.0.0` as a registry serves it: metadata and tarball. */
function pack() {
  const src = join(dir, 'pkg', 'package')
  mkdirSync(src, { recursive: true })
  writeFileSync(
    join(src, 'package.json'),
    JSON.stringify({ name: 'greet-fixture', version: '1.0.0', main: 'index.js' }),
  )
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the package's source, a template literal of its own
  writeFileSync(join(src, 'index.js'), 'module.exports = (name) => `Hello ${name} from npm`\n')
  const tgz = join(dir, 'greet-fixture-1.0.0.tgz')
  execFileSync('tar', ['czf', tgz, '-C', join(dir, 'pkg'), 'package'])
  return readFileSync(tgz)
}

async function registry(tarball) {
  let requests = 0
  const server = http.createServer((req, res) => {
    requests++
    const base = `http://127.0.0.1:${server.address().port}`
    if (req.url === '/greet-fixture') {
      const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`
      const version = {
        name: 'greet-fixture',
        version: '1.0.0',
        main: 'index.js',
        dist: { tarball: `${base}/greet-fixture/-/greet-fixture-1.0.0.tgz`, integrity },
      }
      res.setHeader('content-type', 'application/json')
      res.end(
        JSON.stringify({
          name: 'greet-fixture',
          'dist-tags': { latest: '1.0.0' },
          versions: { '1.0.0': version },
        }),
      )
    } else if (req.url === '/greet-fixture/-/greet-fixture-1.0.0.tgz') {
      res.end(tarball)
    } else {
      res.statusCode = 404
      res.end('{}')
    }
  })
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () => new Promise((r) => server.close(r)),
    requests: () => requests,
  }
}

test("a function's npm modules come from the data directory once downloaded", async () => {
  const project = join(dir, 'project')
  mkdirSync(join(project, 'supabase/functions/greet'), { recursive: true })
  writeFileSync(
    join(project, 'supabase/config.toml'),
    'project_id = "npm-offline"\n\n[functions.greet]\nverify_jwt = false\n',
  )
  writeFileSync(
    join(project, 'supabase/functions/greet/index.ts'),
    "import greet from 'npm:greet-fixture@1.0.0'\nDeno.serve(() => new Response(greet('Sage')))\n",
  )
  const reg = await registry(pack())
  const dataDir = join(dir, 'data')
  const env = { NPM_CONFIG_REGISTRY: reg.url }
  const call = async (gw) => {
    const r = await fetch(`${gw.url}/functions/v1/greet`)
    return [r.status, await r.text()]
  }

  let gw = await startGateway({ workdir: project, dataDir, env })
  assert.deepEqual(await call(gw), [200, 'Hello Sage from npm'])
  await gw.stop()
  assert.ok(reg.requests() >= 2, 'downloaded from the registry')
  await reg.close()

  gw = await startGateway({ workdir: project, dataDir, env })
  try {
    assert.deepEqual(await call(gw), [200, 'Hello Sage from npm'], 'served with the registry gone')
  } finally {
    await gw.stop()
  }
})
