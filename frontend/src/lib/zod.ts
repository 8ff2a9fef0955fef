/**
 * zod, set up for this site: without its JIT, which tests whether it may compile code with
 * `new Function` — a Content-Security-Policy without 'unsafe-eval' (the admin's and sign-in's)
 * reports that test as a violation. Schemas import `z` from here.
 */
import { z } from 'zod'

z.config({ jitless: true })

export { z }
