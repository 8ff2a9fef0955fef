// Free TCP ports on 127.0.0.1 for the servers a test starts.
import { createServer } from 'node:net'

function isFree(port) {
  return new Promise((resolve) => {
    const s = createServer()
    s.once('error', () => resolve(false))
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)))
  })
}

/**
 * `n` ports that are free now (and, with `alsoFree`, whose port + alsoFree is free too), from a
 * random start in 20000–39999 so that parallel runs rarely meet.
 */
export async function freePorts(n, { alsoFree = 0 } = {}) {
  const found = []
  let port = 20000 + Math.floor(Math.random() * 20000)
  while (found.length < n) {
    port = port >= 40000 ? 20000 : port + 1
    if (found.includes(port) || (alsoFree && found.includes(port + alsoFree))) continue
    if ((await isFree(port)) && (!alsoFree || (await isFree(port + alsoFree)))) found.push(port)
  }
  return found
}
