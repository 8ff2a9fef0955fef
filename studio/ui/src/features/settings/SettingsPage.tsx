import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { Check, Copy } from 'lucide-react'
import { api } from '@/lib/api'
import { Button } from '@/components/ui/button'
import { ErrorNote } from '@/components/ErrorNote'
import { PageHeader } from '@/components/Layout'
import { Badge } from '@/components/ui/badge'
import {
  connectionStrings,
  groupKeys,
  shownValue,
  type ConfigKey,
  type ConfigListing,
  type Settings,
} from './settings'

/** A value with a button that copies it. */
function Item({ label, value, secret }: { label: string; value: string | null; secret?: boolean }) {
  const [copied, setCopied] = useState(false)
  const [shown, setShown] = useState(!secret)
  if (value === null) return null
  return (
    <div className="flex flex-col gap-1 border-b border-border py-2">
      <dt className="text-xs font-medium text-muted-foreground">{label}</dt>
      <dd className="flex items-center gap-2">
        <code className="min-w-0 flex-1 break-all font-mono text-xs">
          {shown ? value : '•'.repeat(24)}
        </code>
        {secret ? (
          <Button
            size="sm"
            variant="outline"
            onClick={() => setShown(!shown)}
            aria-label={`${shown ? 'Hide' : 'Show'} ${label}`}
          >
            {shown ? 'Hide' : 'Show'}
          </Button>
        ) : null}
        <Button
          size="icon"
          variant="ghost"
          aria-label={`Copy ${label}`}
          onClick={async () => {
            await navigator.clipboard.writeText(value)
            setCopied(true)
            setTimeout(() => setCopied(false), 1500)
          }}
        >
          {copied ? <Check /> : <Copy />}
        </Button>
      </dd>
    </div>
  )
}

function Section({
  title,
  children,
  note,
}: {
  title: string
  children: React.ReactNode
  note?: React.ReactNode
}) {
  return (
    <section aria-label={title} className="rounded-md border border-border bg-panel p-4">
      <h2 className="font-semibold">{title}</h2>
      <dl className="mt-2">{children}</dl>
      {note ? <p className="pt-2 text-xs text-muted-foreground">{note}</p> : null}
    </section>
  )
}

/** One table of config.toml's keys: key, value (secrets masked), line. */
function KeyTable({ section, keys, file }: { section: string; keys: ConfigKey[]; file: string }) {
  const title = section === '' ? '(top level)' : `[${section}]`
  return (
    <div className="mt-3">
      <h3 className="font-mono text-xs font-semibold">{title}</h3>
      <table className="mt-1 w-full border-collapse text-left text-xs">
        <caption className="sr-only">
          {title} in {file}
        </caption>
        <thead>
          <tr className="text-muted-foreground">
            <th scope="col" className="w-2/5 border-b border-border py-1 pr-2 font-medium">
              Key
            </th>
            <th scope="col" className="border-b border-border py-1 pr-2 font-medium">
              Value
            </th>
            <th scope="col" className="w-24 border-b border-border py-1 text-right font-medium">
              Line
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k.key} className="align-top">
              <td className="break-all border-b border-border py-1 pr-2 font-mono">
                {k.key.slice(section === '' ? 0 : section.length + 1)}
              </td>
              <td className="break-all border-b border-border py-1 pr-2 font-mono">
                {shownValue(k)}
                {k.overridden_by ? (
                  <span className="ml-2">
                    <Badge tone="warn">replaced by {k.overridden_by}</Badge>
                  </span>
                ) : null}
                {k.applied ? null : (
                  <span className="ml-2">
                    <Badge>not applied by supagate</Badge>
                  </span>
                )}
              </td>
              <td className="border-b border-border py-1 text-right font-mono text-muted-foreground">
                {file}:{k.line}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** The sign-in methods in force and config.toml's keys, auth first, each with its line. */
function ConfigSections({ c }: { c: ConfigListing }) {
  const groups = groupKeys(c.keys)
  const file = c.file ?? 'supabase/config.toml'
  return (
    <>
      <section aria-label="Auth providers" className="rounded-md border border-border bg-panel p-4">
        <h2 className="font-semibold">Auth providers</h2>
        <ul className="mt-2 flex flex-wrap gap-2">
          {c.providers.map((p) => (
            <li key={p.name} className="flex items-center gap-1.5 text-sm">
              {p.name}
              <Badge tone={p.enabled ? 'good' : 'neutral'}>{p.enabled ? 'on' : 'off'}</Badge>
            </li>
          ))}
        </ul>
        <p className="pt-2 text-xs text-muted-foreground">
          As the auth server read them at start. Change them in {file} and restart.
        </p>
      </section>
      <section
        aria-label="Auth configuration"
        className="rounded-md border border-border bg-panel p-4"
      >
        <h2 className="font-semibold">Auth configuration</h2>
        <p className="mt-1 text-xs text-muted-foreground">
          {c.file
            ? `Read-only: the keys ${file} sets, with their lines. Secrets are masked; env() values name their variable.`
            : "This project has no supabase/config.toml: the Supabase CLI's defaults apply. Run supagate init to write one."}
        </p>
        {c.file && groups.auth.length === 0 ? (
          <p className="mt-2 text-sm">
            {file} sets no [auth] keys: the Supabase CLI&apos;s defaults apply.
          </p>
        ) : null}
        {groups.auth.map(([section, keys]) => (
          <KeyTable key={section} section={section} keys={keys} file={file} />
        ))}
        {groups.other.length ? (
          <details className="mt-4">
            <summary className="cursor-pointer text-sm font-medium">Other keys in {file}</summary>
            {groups.other.map(([section, keys]) => (
              <KeyTable key={section} section={section} keys={keys} file={file} />
            ))}
          </details>
        ) : null}
      </section>
    </>
  )
}

export default function SettingsPage() {
  const q = useQuery({ queryKey: ['settings'], queryFn: () => api<Settings>('/settings') })
  const s = q.data
  const config = useQuery({
    queryKey: ['settings-config'],
    queryFn: () => api<ConfigListing>('/settings/config'),
  })
  return (
    <div>
      <PageHeader title="Project settings" />
      <div className="grid max-w-4xl gap-4 p-5">
        <ErrorNote error={q.error} />
        {s ? (
          <>
            <Section title="API">
              <Item label="API URL" value={s.urls.api} />
              <Item label="REST URL" value={s.urls.rest} />
              <Item label="GraphQL URL" value={s.urls.graphql} />
              <Item label="Storage URL" value={s.urls.storage} />
              <Item label="Realtime URL" value={s.urls.realtime} />
              <Item label="Functions URL" value={s.urls.functions} />
            </Section>
            <Section title="API keys">
              <Item label="Publishable key" value={s.keys.publishable} />
              <Item label="Secret key" value={s.keys.secret} secret />
              <Item label="anon key" value={s.keys.anon} />
              <Item label="service_role key" value={s.keys.service_role} secret />
            </Section>
            <Section
              title="JWT"
              note={
                s.jwt.demo_secret
                  ? "The Supabase CLI's demo secret: set auth.jwt_secret in config.toml for your own."
                  : undefined
              }
            >
              <Item label="JWT secret" value={s.jwt.secret} secret />
              <Item label="Algorithm" value={s.jwt.algorithm} />
              <Item label="Access token expiry (seconds)" value={String(s.jwt.expiry)} />
            </Section>
            <Section
              title="Database"
              note={`PostgreSQL ${s.database.version}. The password is DB_URL's in \`supagate status\`.`}
            >
              {connectionStrings(s.database).map(([label, value]) => (
                <Item key={label} label={label} value={value} />
              ))}
            </Section>
          </>
        ) : null}
        <ErrorNote error={config.error} />
        {config.data ? <ConfigSections c={config.data} /> : null}
      </div>
    </div>
  )
}
