import { useEffect, useRef, useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import type { RealtimeChannel } from '@supabase/supabase-js'
import { api } from '@/lib/api'
import { useSession, useSupabase } from '@/lib/session'
import { Button } from '@/components/ui/button'
import { Field, Input } from '@/components/ui/input'
import { ErrorNote } from '@/components/ErrorNote'
import { ValueTable } from '@/components/ValueTable'
import { PageHeader } from '@/components/Layout'

interface Channel {
  topic: string
  private: boolean
  joined: number
  presences: number
  roles: string[]
  changes: string[]
}

interface Event {
  at: string
  kind: string
  payload: unknown
}

const KEPT = 200

export default function RealtimePage() {
  const { session } = useSession()
  const supabase = useSupabase()
  const channels = useQuery({
    queryKey: ['channels'],
    queryFn: () => api<Channel[]>('/realtime/channels'),
    refetchInterval: 2000,
    enabled: session.realtime,
  })
  const [topic, setTopic] = useState('room-1')
  const [table, setTable] = useState('')
  const [status, setStatus] = useState('not joined')
  const [events, setEvents] = useState<Event[]>([])
  const [message, setMessage] = useState('{"text": "hello"}')
  const [error, setError] = useState<unknown>(null)
  const channel = useRef<RealtimeChannel | null>(null)
  const add = (kind: string, payload: unknown) =>
    setEvents((e) => [{ at: new Date().toLocaleTimeString(), kind, payload }, ...e].slice(0, KEPT))
  const leave = () => {
    if (channel.current) supabase.removeChannel(channel.current)
    channel.current = null
    setStatus('not joined')
  }
  // biome-ignore lint/correctness/useExhaustiveDependencies: leaves the channel once, when the page goes
  useEffect(() => leave, [])
  const join = () => {
    leave()
    setEvents([])
    const ch = supabase.channel(topic, {
      config: { broadcast: { self: true }, presence: { key: 'studio' } },
    })
    ch.on('broadcast', { event: '*' }, (p) => add(`broadcast ${p.event}`, p.payload))
    ch.on('presence', { event: 'sync' }, () => add('presence sync', ch.presenceState()))
    if (table.trim()) {
      const [schema, name] = table.includes('.') ? table.split('.', 2) : ['public', table]
      ch.on('postgres_changes', { event: '*', schema, table: name }, (p) =>
        add(`${p.eventType} ${schema}.${name}`, p.new && Object.keys(p.new).length ? p.new : p.old),
      )
    }
    ch.subscribe((s, err) => {
      setStatus(s.toLowerCase())
      if (err) setError(err)
      if (s === 'SUBSCRIBED') ch.track({ who: 'Studio', at: new Date().toISOString() })
    })
    channel.current = ch
  }
  const send = async () => {
    setError(null)
    try {
      const payload = JSON.parse(message)
      const r = await channel.current?.send({ type: 'broadcast', event: 'message', payload })
      if (r !== 'ok') throw new Error(`the broadcast was not sent (${r})`)
    } catch (e) {
      setError(e)
    }
  }
  if (!session.realtime)
    return (
      <div>
        <PageHeader title="Realtime" />
        <p className="p-4 text-muted-foreground">
          Realtime is switched off in config.toml ([realtime] enabled = false).
        </p>
      </div>
    )
  return (
    <div>
      <PageHeader title="Realtime" />
      <div className="space-y-5 p-4">
        <section aria-labelledby="live-channels" className="space-y-2">
          <h2 id="live-channels" className="font-semibold">
            Channels joined on this gateway
          </h2>
          <ValueTable
            caption="Channels"
            rows={(channels.data ?? []).map((c) => ({
              topic: c.topic,
              private: c.private,
              joined: c.joined,
              presences: c.presences,
              roles: c.roles.join(', '),
              changes: c.changes.join('; '),
            }))}
            empty="No channel is joined right now: join one below, or subscribe from your app with supabase.channel(name).subscribe()."
          />
        </section>
        <section aria-labelledby="listen" className="space-y-3">
          <h2 id="listen" className="font-semibold">
            Listen and send
          </h2>
          <form
            className="flex flex-wrap items-end gap-2"
            onSubmit={(e) => {
              e.preventDefault()
              join()
            }}
          >
            <Field label="Channel">
              <Input value={topic} onChange={(e) => setTopic(e.target.value)} required />
            </Field>
            <Field label="Changes of table (schema.table, optional)">
              <Input
                value={table}
                onChange={(e) => setTable(e.target.value)}
                placeholder="public.messages"
              />
            </Field>
            <Button type="submit">Join</Button>
            <Button variant="outline" onClick={leave}>
              Leave
            </Button>
            <span className="text-xs text-muted-foreground" role="status">
              Status: {status}
            </span>
          </form>
          <form
            className="flex flex-wrap items-end gap-2"
            onSubmit={(e) => {
              e.preventDefault()
              send()
            }}
          >
            <Field label="Broadcast payload (JSON)" className="w-96">
              <Input
                value={message}
                onChange={(e) => setMessage(e.target.value)}
                className="font-mono"
              />
            </Field>
            <Button type="submit" variant="outline" disabled={status !== 'subscribed'}>
              Send broadcast
            </Button>
          </form>
          <ErrorNote error={error} />
          <ol aria-label="Events" className="space-y-1">
            {events.map((e, i) => (
              <li
                key={i}
                className="rounded-md border border-border bg-panel p-2 font-mono text-xs"
              >
                <span className="text-muted-foreground">{e.at}</span> <strong>{e.kind}</strong>{' '}
                {JSON.stringify(e.payload)}
              </li>
            ))}
          </ol>
        </section>
      </div>
    </div>
  )
}
