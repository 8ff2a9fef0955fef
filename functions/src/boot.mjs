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
// Functions written for Deno 1's std `serve()` (`https://deno.land/std@0.168.0/http/server.ts`,
// the CLI's old template) listen on a TCP port with Deno.listen: their first TCP listener is
// the unix socket DENO_SERVE_ADDRESS names, as Deno.serve()'s is.
const address = Deno.env.get('DENO_SERVE_ADDRESS')
const listen = Deno.listen
let claimed = false
Deno.listen = (options) => {
  if (!claimed && address?.startsWith('unix:') && (options?.transport ?? 'tcp') === 'tcp') {
    claimed = true
    return listen({ transport: 'unix', path: address.slice('unix:'.length) })
  }
  return listen(options)
}
await import(Deno.args[0])
