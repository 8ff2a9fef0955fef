// Free TCP ports on 127.0.0.1 for the servers a test starts.
import { createServer } from 'node:net'
import { readFileSync } from 'node:fs'

function isFree(port) {
  return new Promise((resolve) => {
    const s = createServer()
    s.once('error', () => resolve(false))
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)))
  })
}

/**
 * The first port the kernel hands to outgoing connections. A port chosen in that range can be
 * taken by a client's connection (to PostgreSQL, by wrk…) between the check and the server's
 * bind, and the bind then fails: ports are chosen below it.
 */
function ephemeralStart() {
  try {
    return (
      Number(
        readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
      ) || 32768
    )
  } catch {
    return 32768
  }
}

const LOW = 20000
/** Ports already handed out by this process (and their `alsoFree` partners): never given twice. */
const given = new Set()

/**
 * `n` ports that are free now (and, with `alsoFree`, whose port + alsoFree is free too), below
 * the ephemeral range, from a random start so that parallel runs rarely meet, none handed out
 * before by this process.
 */
export async function freePorts(n, { alsoFree = 0 } = {}) {
  const high = Math.max(LOW + 1000, ephemeralStart() - alsoFree)
  const found = []
  let port = LOW + Math.floor(Math.random() * (high - LOW))
  for (let tried = 0; found.length < n; tried++) {
    if (tried > high - LOW) throw new Error(`no ${n} free ports between ${LOW} and ${high}`)
    port = port + 1 >= high ? LOW : port + 1
    const taken = (p) => given.has(p) || found.includes(p)
    if (taken(port) || (alsoFree && taken(port + alsoFree))) continue
    if ((await isFree(port)) && (!alsoFree || (await isFree(port + alsoFree)))) found.push(port)
  }
  for (const p of found) given.add(p).add(p + alsoFree)
  return found
}
