import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { RouteObject } from 'react-router-dom'
import { routes } from '@/app/App'
import { occasions } from '@/features/catalogue/OccasionPage'

/** The rules of public/_redirects: [from, to, status]. */
const rules = readFileSync(join(__dirname, '../../public/_redirects'), 'utf8')
  .split('\n')
  .map((l) => l.split('#')[0].trim())
  .filter(Boolean)
  .map((l) => l.split(/\s+/) as [string, string, string])

/** The status the first matching rule gives `path` (splats and :params as the server reads them). */
function statusOf(path: string): string | undefined {
  const parts = path.split('/').filter(Boolean)
  for (const [from, , status] of rules) {
    const segs = from.split('/').filter(Boolean)
    const ok =
      segs.every(
        (s, i) => s === '*' || (s.startsWith(':') ? parts[i] !== undefined : parts[i] === s),
      ) &&
      (segs.at(-1) === '*' || segs.length === parts.length)
    if (ok) return status
  }
  return undefined
}

/** Every path the app's router knows, with sample values for its parameters. */
function appPaths(list: RouteObject[], base = ''): string[] {
  return list.flatMap((r) => {
    const here =
      r.path === undefined
        ? base
        : r.path.startsWith('/')
          ? r.path
          : `${base}/${r.path}`.replace('//', '/')
    const own = r.path !== undefined && r.path !== '*' ? [here] : []
    return [...own, ...appPaths(r.children ?? [], here)]
  })
}

describe('the site’s _redirects', () => {
  it('answers 200 for every page of the app and every occasion, 404 for anything else', () => {
    const paths = appPaths(routes)
      .flatMap((p) =>
        p === '/occasions/:slug' ? Object.keys(occasions).map((s) => `/occasions/${s}`) : [p],
      )
      .map((p) => p.replace(/:[a-z]+/g, 'x1'))
    expect(paths).toContain('/build-bouquet/sent/x1')
    for (const p of paths) expect(statusOf(p), p).toBe('200')
    for (const p of ['/no/such/page', '/occasions/weddings', '/product/1/more', '/not-found'])
      expect(statusOf(p), p).toBe('404')
    expect(statusOf('/sitemap.xml')).toBe('200')
  })
})
