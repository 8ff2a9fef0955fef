// A Vite plugin: after the build, each text asset of the site gets a brotli (quality 11) and a
// gzip (level 9) copy beside it (`app.js.br`, `app.js.gz`); the gateway serves the one the
// browser accepts. Fonts and images are compressed already and get none.
import type { Plugin, ResolvedConfig } from 'vite'
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

const TEXT = /\.(js|mjs|css|html|svg|json|txt|xml|webmanifest|map)$/
const SMALLEST = 512

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) yield* files(path)
    else yield path
  }
}

export function precompress(): Plugin {
  let outDir = 'dist'
  return {
    name: 'supagate-precompress',
    apply: 'build',
    configResolved(config: ResolvedConfig) {
      outDir = resolve(config.root, config.build.outDir)
    },
    closeBundle() {
      for (const path of files(outDir)) {
        if (!TEXT.test(path)) continue
        const bytes = readFileSync(path)
        if (bytes.length < SMALLEST) continue
        const br = brotliCompressSync(bytes, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
            [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          },
        })
        const gz = gzipSync(bytes, { level: 9 })
        if (br.length < bytes.length) writeFileSync(`${path}.br`, br)
        if (gz.length < bytes.length) writeFileSync(`${path}.gz`, gz)
      }
    },
  }
}
