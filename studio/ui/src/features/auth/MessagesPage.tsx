import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api'
import { cn } from '@/lib/cn'
import { Button } from '@/components/ui/button'
import { ErrorNote } from '@/components/ErrorNote'
import { PageHeader } from '@/components/Layout'
import { useSession } from '@/lib/session'
import { AuthNav } from './AuthNav'

/** Mailpit's shapes (the mail catcher's own API answers the same). */
interface Address {
  Name: string
  Address: string
}

interface MailSummary {
  ID: string
  To: Address[]
  From: Address
  ReplyTo: Address[]
  Subject: string
  Created: string
}

interface MailFull extends MailSummary {
  HTML: string
  Text: string
}

const addressText = (a: Address) => (a.Name ? `${a.Name} <${a.Address}>` : a.Address)

interface Text {
  id: string
  to: string
  body: string
  channel: string
  created: string
}

export default function MessagesPage() {
  const { session } = useSession()
  const qc = useQueryClient()
  const [open, setOpen] = useState<string | null>(null)
  const mail = useQuery({
    queryKey: ['mail'],
    queryFn: () => api<MailSummary[]>('/mail'),
    refetchInterval: 3000,
    enabled: session.mail,
  })
  const one = useQuery({
    queryKey: ['mail', open],
    queryFn: () => api<MailFull>(`/mail/${open}`),
    enabled: open !== null,
  })
  const texts = useQuery({
    queryKey: ['texts'],
    queryFn: () => api<Text[]>('/sms'),
    refetchInterval: 3000,
    enabled: session.mail,
  })
  const clear = useMutation({
    mutationFn: () => api('/mail', { method: 'DELETE' }),
    onSuccess: () => {
      setOpen(null)
      qc.invalidateQueries({ queryKey: ['mail'] })
    },
  })
  return (
    <div>
      <PageHeader title="Authentication">
        <Button variant="outline" onClick={() => clear.mutate()} disabled={!mail.data?.length}>
          Delete all mail
        </Button>
      </PageHeader>
      <AuthNav />
      {!session.mail ? (
        <p className="p-4 text-muted-foreground">
          Mail goes to the SMTP server in config.toml ([auth.email.smtp]): nothing is caught here.
        </p>
      ) : (
        <div className="grid gap-4 p-4 lg:grid-cols-[22rem_1fr]">
          <section aria-label="Caught mail" className="space-y-1">
            <h2 className="font-semibold">Mail ({mail.data?.length ?? 0})</h2>
            <ErrorNote error={mail.error ?? clear.error} />
            {mail.data?.length === 0 ? (
              <p className="text-muted-foreground">
                No mail caught yet: confirmations, magic links, invites and password resets that
                auth sends appear here.
              </p>
            ) : null}
            <ul className="space-y-1">
              {mail.data?.map((m) => (
                <li key={m.ID}>
                  <button
                    type="button"
                    onClick={() => setOpen(m.ID)}
                    className={cn(
                      'w-full rounded-md border border-border bg-panel p-2 text-left hover:bg-muted',
                      open === m.ID && 'border-primary',
                    )}
                  >
                    <span className="block font-medium">{m.Subject}</span>
                    <span className="block text-xs text-muted-foreground">
                      to {m.To.map(addressText).join(', ')} · {new Date(m.Created).toLocaleString()}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
            <h2 className="pt-4 font-semibold">Text messages ({texts.data?.length ?? 0})</h2>
            {texts.data?.length === 0 ? (
              <p className="text-muted-foreground">
                No text messages caught yet: phone sign-in codes appear here when no SMS provider is
                set up.
              </p>
            ) : null}
            <ul className="space-y-1">
              {texts.data?.map((t) => (
                <li key={t.id} className="rounded-md border border-border bg-panel p-2">
                  <span className="block text-xs text-muted-foreground">
                    to {t.to} by {t.channel} · {new Date(t.created).toLocaleString()}
                  </span>
                  <span className="block">{t.body}</span>
                </li>
              ))}
            </ul>
          </section>
          <section aria-label="Mail" className="min-w-0">
            {one.data ? (
              <article className="rounded-md border border-border bg-panel">
                <header className="border-b border-border p-3">
                  <h2 className="text-base font-semibold">{one.data.Subject}</h2>
                  <p className="text-xs text-muted-foreground">
                    from {addressText(one.data.From)} to {one.data.To.map(addressText).join(', ')}
                    {one.data.ReplyTo.length
                      ? ` · reply to ${one.data.ReplyTo.map(addressText).join(', ')}`
                      : ''}
                  </p>
                </header>
                {one.data.HTML ? (
                  <iframe
                    title="The mail as sent"
                    sandbox=""
                    srcDoc={one.data.HTML}
                    className="h-[28rem] w-full"
                  />
                ) : (
                  <pre className="whitespace-pre-wrap p-3">{one.data.Text}</pre>
                )}
              </article>
            ) : (
              <p className="text-muted-foreground">Choose a mail to read it.</p>
            )}
          </section>
        </div>
      )}
    </div>
  )
}
