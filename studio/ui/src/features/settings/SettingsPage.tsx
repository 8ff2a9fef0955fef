import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { Check, Copy } from 'lucide-react'
import { api } from '@/lib/api'
import { Button } from '@/components/ui/button'
import { ErrorNote } from '@/components/ErrorNote'
import { PageHeader } from '@/components/Layout'
import { connectionStrings, type Settings } from './settings'

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

export default function SettingsPage() {
  const q = useQuery({ queryKey: ['settings'], queryFn: () => api<Settings>('/settings') })
  const s = q.data
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
      </div>
    </div>
  )
}
