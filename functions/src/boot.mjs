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
// A request reaches the function over the unix socket, so Deno names it
// `http+unix://<Host>/<slug>/…` (and `new URL(req.url).origin` is "null"): the function sees it
// at the API's public address instead, `http://127.0.0.1:54321/<slug>/…` (SUPABASE_URL, which is
// API_EXTERNAL_URL when set), with the path as the CLI's runtime gives it.
const publicOrigin = (() => {
  try {
    const origin = new URL(Deno.env.get('SUPABASE_URL') ?? '').origin
    return origin === 'null' ? null : origin
  } catch {
    return null
  }
})()
const publicRequest = (req) => {
  const url = req.url
  if (publicOrigin === null || !url.startsWith('http+unix://')) {
    return req
  }
  const path = url.indexOf('/', 'http+unix://'.length)
  const clone = req.clone.bind(req)
  Object.defineProperty(req, 'url', {
    value: publicOrigin + (path < 0 ? '/' : url.slice(path)),
    enumerable: true,
  })
  Object.defineProperty(req, 'clone', { value: () => publicRequest(clone()) })
  return req
}
const withPublicUrl = (handler) =>
  typeof handler === 'function' ? (req, info) => handler(publicRequest(req), info) : handler
const serve = Deno.serve
// Deno.serve(handler), Deno.serve(options, handler) and Deno.serve({ handler, … }).
Deno.serve = function (...args) {
  if (typeof args[0] === 'function') {
    args[0] = withPublicUrl(args[0])
  } else if (typeof args[1] === 'function') {
    args[1] = withPublicUrl(args[1])
  } else if (args[0] !== null && typeof args[0]?.handler === 'function') {
    args[0] = { ...args[0], handler: withPublicUrl(args[0].handler) }
  }
  return serve.apply(this, args)
}
await import(Deno.args[0])
