import { useRef, useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useParams } from 'react-router-dom'
import { File, Folder, FolderPlus, Plus, Trash2, Upload } from 'lucide-react'
import type { Bucket, FileObject } from './types'
import { useSupabase } from '@/lib/session'
import { cn } from '@/lib/cn'
import { Button } from '@/components/ui/button'
import { Badge } from '@/components/ui/badge'
import { ErrorNote } from '@/components/ErrorNote'
import { PageHeader } from '@/components/Layout'
import { BucketDialog } from './BucketDialog'
import { FilePreview } from './FilePreview'

/** supabase-js answers `{ data, error }`: the data, or the error thrown. */
export async function unwrap<T>(
  p: PromiseLike<{ data: T; error: unknown }>,
): Promise<NonNullable<T>> {
  const { data, error } = await p
  if (error) throw error
  return data as NonNullable<T>
}

export default function StoragePage() {
  const { bucket, '*': rest = '' } = useParams()
  const prefix = rest ? (rest.endsWith('/') ? rest : `${rest}/`) : ''
  const supabase = useSupabase()
  const qc = useQueryClient()
  const navigate = useNavigate()
  const upload = useRef<HTMLInputElement>(null)
  const [editing, setEditing] = useState<Bucket | 'new' | null>(null)
  const [chosen, setChosen] = useState<FileObject | null>(null)
  const buckets = useQuery({
    queryKey: ['buckets'],
    queryFn: () => unwrap(supabase.storage.listBuckets()),
  })
  const current = buckets.data?.find((b) => b.id === bucket)
  const files = useQuery({
    queryKey: ['files', bucket, prefix],
    enabled: !!bucket,
    queryFn: () =>
      unwrap(
        supabase.storage.from(bucket!).list(prefix.replace(/\/$/, ''), {
          limit: 1000,
          sortBy: { column: 'name', order: 'asc' },
        }),
      ),
  })
  const refresh = () => qc.invalidateQueries({ queryKey: ['files', bucket] })
  const act = useMutation({
    mutationFn: async (
      what: { upload: FileList } | { folder: string } | { remove: string } | 'delete-bucket',
    ) => {
      const store = supabase.storage.from(bucket!)
      if (what === 'delete-bucket') {
        await unwrap(supabase.storage.emptyBucket(bucket!))
        await unwrap(supabase.storage.deleteBucket(bucket!))
        navigate('/storage')
      } else if ('upload' in what) {
        for (const f of Array.from(what.upload))
          await unwrap(store.upload(`${prefix}${f.name}`, f, { contentType: f.type || undefined }))
      } else if ('folder' in what) {
        // Storage has no folders: a placeholder object holds one open, as Supabase Studio does.
        await unwrap(
          store.upload(`${prefix}${what.folder}/.emptyFolderPlaceholder`, new Blob([''])),
        )
      } else {
        await unwrap(store.remove([what.remove]))
        setChosen(null)
      }
    },
    onSettled: () => {
      refresh()
      qc.invalidateQueries({ queryKey: ['buckets'] })
    },
  })
  const crumbs = prefix.split('/').filter(Boolean)
  const entries = (files.data ?? []).filter((f) => f.name !== '.emptyFolderPlaceholder')
  return (
    <div className="flex h-full">
      <aside className="w-56 shrink-0 border-r border-border bg-panel p-3">
        <div className="flex items-center justify-between">
          <h2 className="text-xs font-semibold uppercase tracking-wide text-muted-foreground">
            Buckets
          </h2>
          <Button size="sm" variant="outline" onClick={() => setEditing('new')}>
            <Plus /> New
          </Button>
        </div>
        <ErrorNote error={buckets.error} />
        <ul className="mt-2 space-y-0.5">
          {buckets.data?.map((b) => (
            <li key={b.id}>
              <Link
                to={`/storage/${encodeURIComponent(b.id)}`}
                className={cn(
                  'flex items-center gap-2 rounded px-2 py-1.5 hover:bg-muted',
                  b.id === bucket && 'bg-emerald-50 font-medium',
                )}
              >
                <span className="flex-1 truncate">{b.name}</span>
                {b.public ? <Badge tone="warn">public</Badge> : null}
              </Link>
            </li>
          ))}
          {buckets.data?.length === 0 ? (
            <li className="text-muted-foreground">
              No buckets yet. <strong>New</strong> makes one here; a [storage.buckets.&lt;name&gt;]
              section in supabase/config.toml makes one at every start.
            </li>
          ) : null}
        </ul>
      </aside>
      <section className="min-w-0 flex-1">
        {!bucket ? (
          <PageHeader title="Storage" />
        ) : (
          <PageHeader title={`Bucket ${bucket}`}>
            {current ? (
              <span className="text-xs text-muted-foreground">
                {current.file_size_limit
                  ? `at most ${current.file_size_limit.toLocaleString('en-US')} bytes`
                  : 'no size limit'}{' '}
                ·{' '}
                {current.allowed_mime_types?.length
                  ? current.allowed_mime_types.join(', ')
                  : 'any type'}
              </span>
            ) : null}
            <Button variant="outline" size="sm" onClick={() => current && setEditing(current)}>
              Edit bucket
            </Button>
            <Button
              variant="danger"
              size="sm"
              onClick={() =>
                confirm(`Delete the bucket ${bucket} and every file in it?`) &&
                act.mutate('delete-bucket')
              }
            >
              Delete bucket
            </Button>
          </PageHeader>
        )}
        {bucket ? (
          <div className="space-y-3 p-4">
            <div className="flex flex-wrap items-center gap-2">
              <nav aria-label="Folder" className="mr-auto flex items-center gap-1">
                <Link
                  className="text-primary hover:underline"
                  to={`/storage/${encodeURIComponent(bucket)}`}
                >
                  {bucket}
                </Link>
                {crumbs.map((c, i) => (
                  <span key={i}>
                    {' / '}
                    <Link
                      className="text-primary hover:underline"
                      to={`/storage/${encodeURIComponent(bucket)}/${crumbs
                        .slice(0, i + 1)
                        .map(encodeURIComponent)
                        .join('/')}/`}
                    >
                      {c}
                    </Link>
                  </span>
                ))}
              </nav>
              <input
                ref={upload}
                type="file"
                multiple
                className="sr-only"
                aria-label="Files to upload"
                onChange={(e) => e.target.files?.length && act.mutate({ upload: e.target.files })}
              />
              <Button onClick={() => upload.current?.click()} disabled={act.isPending}>
                <Upload /> Upload files
              </Button>
              <Button
                variant="outline"
                onClick={() => {
                  const name = prompt('Folder name')
                  if (name) act.mutate({ folder: name })
                }}
              >
                <FolderPlus /> New folder
              </Button>
            </div>
            <ErrorNote error={files.error ?? act.error} />
            <div className="grid gap-4 lg:grid-cols-[1fr_22rem]">
              <ul
                className="divide-y divide-border rounded-md border border-border bg-panel"
                aria-label="Files"
              >
                {entries.map((f) =>
                  f.id === null ? (
                    <li key={f.name}>
                      <Link
                        to={`/storage/${encodeURIComponent(bucket)}/${prefix}${encodeURIComponent(f.name)}/`}
                        className="flex items-center gap-2 px-3 py-2 hover:bg-muted"
                      >
                        <Folder className="size-4 text-amber-600" aria-hidden /> {f.name}/
                      </Link>
                    </li>
                  ) : (
                    <li
                      key={f.name}
                      className={cn(
                        'flex items-center gap-2 px-3 py-1.5',
                        chosen?.name === f.name && 'bg-emerald-50',
                      )}
                    >
                      <File className="size-4 text-slate-500" aria-hidden />
                      <button
                        type="button"
                        className="flex-1 truncate text-left hover:underline"
                        onClick={() => setChosen(f)}
                      >
                        {f.name}
                      </button>
                      <span className="text-xs text-muted-foreground">
                        {Number(f.metadata?.size ?? 0).toLocaleString('en-US')} B
                      </span>
                      <Button
                        size="icon"
                        variant="ghost"
                        aria-label={`Delete ${f.name}`}
                        onClick={() => act.mutate({ remove: `${prefix}${f.name}` })}
                      >
                        <Trash2 />
                      </Button>
                    </li>
                  ),
                )}
                {files.data && entries.length === 0 ? (
                  <li className="p-3 text-muted-foreground">
                    This folder is empty: upload a file or make a folder above.
                  </li>
                ) : null}
              </ul>
              {chosen ? (
                <FilePreview
                  key={chosen.name}
                  bucket={bucket}
                  path={`${prefix}${chosen.name}`}
                  file={chosen}
                />
              ) : null}
            </div>
          </div>
        ) : (
          <p className="p-6 text-muted-foreground">
            {buckets.data?.length === 0
              ? 'This project has no buckets: New (on the left) makes one, then upload files into it.'
              : 'Choose a bucket on the left to browse, upload and share its files.'}
          </p>
        )}
      </section>
      <BucketDialog
        bucket={editing}
        onClose={() => setEditing(null)}
        onSaved={(id) => {
          qc.invalidateQueries({ queryKey: ['buckets'] })
          navigate(`/storage/${encodeURIComponent(id)}`)
        }}
      />
    </div>
  )
}
