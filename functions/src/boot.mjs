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
await import(Deno.args[0])
