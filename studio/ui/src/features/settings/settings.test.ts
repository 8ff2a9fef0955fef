import { describe, expect, it } from 'vitest'
import { connectionStrings, groupKeys, host, shownValue, type ConfigKey } from './settings'

describe('connection strings', () => {
  it('picks the host clients reach', () => {
    const cases: [string, string][] = [
      ['*', '127.0.0.1'],
      ['', '127.0.0.1'],
      ['127.0.0.1', '127.0.0.1'],
      ['localhost, 10.0.0.2', 'localhost'],
      ['::1', '[::1]'],
      ['0.0.0.0', '127.0.0.1'],
    ]
    for (const [listen, h] of cases) expect(host(listen), listen).toBe(h)
  })

  it('writes URI, keywords, psql and JDBC forms', () => {
    const s = connectionStrings({
      port: '54322',
      database: 'postgres',
      user: 'postgres',
      listen_addresses: '127.0.0.1',
      version: '15',
    })
    expect(Object.fromEntries(s)).toEqual({
      URI: 'postgresql://postgres@127.0.0.1:54322/postgres',
      'libpq keywords': 'host=127.0.0.1 port=54322 dbname=postgres user=postgres',
      psql: 'psql -h 127.0.0.1 -p 54322 -U postgres postgres',
      JDBC: 'jdbc:postgresql://127.0.0.1:54322/postgres?user=postgres',
    })
    expect(
      connectionStrings({
        port: '5432',
        database: 'my db',
        user: 'a@b',
        listen_addresses: '::1',
        version: '15',
      })[0][1],
    ).toBe('postgresql://a%40b@[::1]:5432/my%20db')
  })
})

import { initialTheme } from '@/lib/theme'

describe('theme', () => {
  it('keeps the chosen theme, else follows the system', () => {
    expect(initialTheme('dark', false)).toBe('dark')
    expect(initialTheme('light', true)).toBe('light')
    expect(initialTheme(null, true)).toBe('dark')
    expect(initialTheme('purple', false)).toBe('light')
  })
})

describe('config.toml keys', () => {
  const key = (over: Partial<ConfigKey>): ConfigKey => ({
    key: 'auth.site_url',
    section: 'auth',
    line: 1,
    value: null,
    secret: null,
    env: null,
    overridden_by: null,
    applied: true,
    ...over,
  })

  it('shows secrets masked and env() values by name', () => {
    const cases: [Partial<ConfigKey>, string][] = [
      [{ value: 'http://127.0.0.1:3000' }, 'http://127.0.0.1:3000'],
      [{ secret: { empty: false } }, '•••••••• (secret)'],
      [{ secret: { empty: true } }, '(empty)'],
      [{ env: { name: 'GITHUB_SECRET', set: false } }, 'env(GITHUB_SECRET) · unset'],
      [{ env: { name: 'SITE', set: true } }, 'env(SITE) · set'],
    ]
    for (const [over, shown] of cases) expect(shownValue(key(over))).toBe(shown)
  })

  it('groups auth tables apart from the others, in the order met', () => {
    const g = groupKeys([
      key({ key: 'project_id', section: '' }),
      key({ key: 'auth.site_url', section: 'auth' }),
      key({ key: 'auth.external.github.enabled', section: 'auth.external.github' }),
      key({ key: 'api.port', section: 'api' }),
      key({ key: 'auth.jwt_expiry', section: 'auth' }),
      key({ key: 'authx.a', section: 'authx' }),
    ])
    expect(g.auth.map(([s, ks]) => [s, ks.map((k) => k.key)])).toEqual([
      ['auth', ['auth.site_url', 'auth.jwt_expiry']],
      ['auth.external.github', ['auth.external.github.enabled']],
    ])
    expect(g.other.map(([s]) => s)).toEqual(['', 'api', 'authx'])
  })
})
