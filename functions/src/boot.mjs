// supagate's bootstrap around one Edge Function: what edge-runtime provides globally, then the
// function's own module (Deno.args[0]), whose Deno.serve() listens where DENO_SERVE_ADDRESS says.
const pending = new Set()
globalThis.EdgeRuntime = {
  /** Keeps work going after the response is sent (the process outlives the request). */
  waitUntil(promise) {
    const p = Promise.resolve(promise)
      .catch((e) => console.error(e))
      .finally(() => pending.delete(p))
    pending.add(p)
    return p
  },
}
// The process ends with supagate: supagate holds the other end of stdin, which closes when it
// stops or dies (kill -9 included), and no function outlives it.
;(async () => {
  const buf = new Uint8Array(64)
  try {
    while ((await Deno.stdin.read(buf)) !== null) {
      // nothing is ever sent
    }
  } catch {
    // closed
  }
  Deno.exit(0)
})()
await import(Deno.args[0])
