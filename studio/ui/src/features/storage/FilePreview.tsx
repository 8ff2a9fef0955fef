import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import type { FileObject } from './types'
import { useSupabase } from '@/lib/session'
import { Button } from '@/components/ui/button'
import { Field, Select } from '@/components/ui/input'
import { ErrorNote } from '@/components/ErrorNote'
import { unwrap } from './StoragePage'

/** A file's details, a preview of images, and a signed URL to share. */
export function FilePreview({
  bucket,
  path,
  file,
}: {
  bucket: string
  path: string
  file: FileObject
}) {
  const supabase = useSupabase()
  const [expires, setExpires] = useState(3600)
  const signed = useQuery({
    queryKey: ['signed', bucket, path, expires],
    queryFn: () => unwrap(supabase.storage.from(bucket).createSignedUrl(path, expires)),
  })
  const type = String(file.metadata?.mimetype ?? '')
  const url = signed.data?.signedUrl
  return (
    <aside aria-label="File" className="space-y-3 rounded-md border border-border bg-panel p-3">
      <h2 className="break-all font-semibold">{file.name}</h2>
      <p className="text-xs text-muted-foreground">
        {type || 'unknown type'} · {Number(file.metadata?.size ?? 0).toLocaleString('en-US')} bytes
        · updated {file.updated_at ? new Date(file.updated_at).toLocaleString() : '—'}
      </p>
      {url && type.startsWith('image/') ? (
        <img
          src={url}
          alt={`Preview of ${file.name}`}
          className="max-h-64 rounded border border-border object-contain"
        />
      ) : null}
      <ErrorNote error={signed.error} />
      <Field label="Signed URL valid for">
        <Select value={expires} onChange={(e) => setExpires(Number(e.target.value))}>
          <option value={60}>1 minute</option>
          <option value={3600}>1 hour</option>
          <option value={86400}>1 day</option>
          <option value={604800}>1 week</option>
        </Select>
      </Field>
      {url ? (
        <>
          <input
            readOnly
            aria-label="Signed URL"
            value={url}
            className="w-full rounded border border-border bg-muted p-1.5 font-mono text-xs"
            onFocus={(e) => e.target.select()}
          />
          <div className="flex gap-2">
            <Button size="sm" variant="outline" onClick={() => navigator.clipboard?.writeText(url)}>
              Copy URL
            </Button>
            <Button size="sm" variant="outline" asChild>
              <a href={url} target="_blank" rel="noopener noreferrer">
                Open
              </a>
            </Button>
          </div>
        </>
      ) : null}
    </aside>
  )
}
