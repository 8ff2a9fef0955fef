import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { NavLink, useParams } from 'react-router-dom'
import { api } from '@/lib/api'
import { cn } from '@/lib/cn'
import { Button } from '@/components/ui/button'
import { Select } from '@/components/ui/input'
import { ErrorNote } from '@/components/ErrorNote'
import { ValueTable } from '@/components/ValueTable'
import { PageHeader } from '@/components/Layout'

const KINDS = [
  'tables',
  'views',
  'functions',
  'triggers',
  'indexes',
  'policies',
  'extensions',
  'roles',
  'publications',
  'migrations',
  'schemas',
]
const BY_SCHEMA = new Set(['tables', 'views', 'functions', 'triggers', 'indexes', 'policies'])

type Row = Record<string, unknown>

export default function DatabasePage() {
  const { kind = 'tables' } = useParams()
  const [schema, setSchema] = useState('public')
  const qc = useQueryClient()
  const schemas = useQuery({
    queryKey: ['schemas'],
    queryFn: () => api<{ name: string }[]>('/database/schemas'),
  })
  const scoped = BY_SCHEMA.has(kind)
  const list = useQuery({
    queryKey: ['database', kind, scoped ? schema : ''],
    queryFn: () =>
      api<Row[]>(`/database/${kind}?schema=${encodeURIComponent(scoped ? schema : '')}`),
  })
  const extension = useMutation({
    mutationFn: ({ name, enabled }: { name: string; enabled: boolean }) =>
      api(`/extensions/${encodeURIComponent(name)}`, {
        method: 'PUT',
        json: { enabled, schema: enabled ? 'extensions' : null },
      }),
    onSettled: () => qc.invalidateQueries({ queryKey: ['database', 'extensions'] }),
  })
  return (
    <div>
      <PageHeader title="Database">
        {scoped ? (
          <label className="flex items-center gap-2 text-xs text-muted-foreground">
            Schema
            <Select value={schema} onChange={(e) => setSchema(e.target.value)}>
              <option value="">all</option>
              {schemas.data?.map((s) => (
                <option key={s.name}>{s.name}</option>
              ))}
            </Select>
          </label>
        ) : null}
      </PageHeader>
      <nav
        aria-label="Database objects"
        className="flex flex-wrap gap-1 border-b border-border bg-panel px-4"
      >
        {KINDS.map((k) => (
          <NavLink
            key={k}
            to={`/database/${k}`}
            className={({ isActive }) =>
              cn(
                '-mb-px border-b-2 border-transparent px-3 py-2 capitalize text-muted-foreground hover:text-foreground',
                isActive && 'border-primary text-foreground',
              )
            }
          >
            {k}
          </NavLink>
        ))}
      </nav>
      <div className="space-y-3 p-4">
        <ErrorNote error={list.error ?? extension.error} />
        {kind === 'extensions' && list.data ? (
          <ExtensionList
            rows={list.data}
            busy={extension.isPending}
            onSwitch={(name, enabled) => extension.mutate({ name, enabled })}
          />
        ) : list.data ? (
          <ValueTable
            caption={kind}
            rows={list.data}
            empty={
              kind === 'migrations'
                ? 'No migrations recorded (supabase_migrations.schema_migrations is empty).'
                : `No ${kind} here.`
            }
          />
        ) : (
          <p className="text-muted-foreground">Loading…</p>
        )}
      </div>
    </div>
  )
}

function ExtensionList({
  rows,
  busy,
  onSwitch,
}: {
  rows: Row[]
  busy: boolean
  onSwitch: (name: string, enabled: boolean) => void
}) {
  return (
    <div className="overflow-auto rounded-md border border-border bg-panel">
      <table className="w-full text-left text-xs">
        <caption className="sr-only">Extensions</caption>
        <thead className="bg-muted">
          <tr>
            {['Extension', 'Installed', 'Available', 'Schema', 'About', ''].map((h) => (
              <th key={h} scope="col" className="px-2 py-1.5 font-semibold">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const name = String(r.name)
            const installed = r.installed_version as string | null
            return (
              <tr key={name} className="border-t border-border">
                <td className="px-2 py-1 font-mono">{name}</td>
                <td className="px-2 py-1">{installed ?? '—'}</td>
                <td className="px-2 py-1">{String(r.default_version ?? '')}</td>
                <td className="px-2 py-1">{String(r.schema ?? '')}</td>
                <td className="px-2 py-1 text-muted-foreground">{String(r.comment ?? '')}</td>
                <td className="px-2 py-1 text-right">
                  <Button
                    size="sm"
                    variant={installed ? 'outline' : 'default'}
                    disabled={busy}
                    onClick={() => onSwitch(name, !installed)}
                    aria-label={`${installed ? 'Disable' : 'Enable'} ${name}`}
                  >
                    {installed ? 'Disable' : 'Enable'}
                  </Button>
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}
