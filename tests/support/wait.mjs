// Waiting in tests and harnesses: `sleep` is Node's own; `until` polls a condition.
export { setTimeout as sleep } from 'node:timers/promises'
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * Polls `check` (sync or async; a throw counts as "not yet") every 25 ms until it is truthy;
 * throws after `ms` naming `what`.
 */
export async function until(check, what, ms = 10_000) {
  const end = Date.now() + ms
  for (;;) {
    try {
      if (await check()) return
    } catch {
      // not yet
    }
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await sleep(25)
  }
}
