import { useEffect, useState } from 'react'
import { useMutation } from '@tanstack/react-query'
import type { Bucket } from './types'
import { useSupabase } from '@/lib/session'
import { Button } from '@/components/ui/button'
import { Field, Input } from '@/components/ui/input'
import { Dialog } from '@/components/ui/dialog'
import { ErrorNote } from '@/components/ErrorNote'
import { unwrap } from './StoragePage'

/** A new bucket (`bucket` 'new') or one's settings: public, size limit, allowed types. */
export function BucketDialog({
  bucket,
  onClose,
  onSaved,
}: {
  bucket: Bucket | 'new' | null
  onClose: () => void
  onSaved: (id: string) => void
}) {
  const supabase = useSupabase()
  const isNew = bucket === 'new'
  const [form, setForm] = useState({ name: '', public: false, limit: '', types: '' })
  useEffect(() => {
    if (bucket && bucket !== 'new')
      setForm({
        name: bucket.name,
        public: bucket.public,
        limit: bucket.file_size_limit ? String(bucket.file_size_limit) : '',
        types: (bucket.allowed_mime_types ?? []).join(', '),
      })
    else setForm({ name: '', public: false, limit: '', types: '' })
  }, [bucket])
  const save = useMutation({
    mutationFn: async () => {
      const options = {
        public: form.public,
        fileSizeLimit: form.limit.trim() || null,
        allowedMimeTypes: form.types
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean),
      }
      if (isNew) await unwrap(supabase.storage.createBucket(form.name, options))
      else await unwrap(supabase.storage.updateBucket((bucket as Bucket).id, options))
      return isNew ? form.name : (bucket as Bucket).id
    },
    onSuccess: (id) => {
      onClose()
      onSaved(id)
    },
  })
  return (
    <Dialog
      open={bucket !== null}
      onOpenChange={(o) => !o && onClose()}
      title={isNew ? 'New bucket' : `Bucket ${form.name}`}
    >
      <form
        className="flex flex-col gap-3"
        onSubmit={(e) => {
          e.preventDefault()
          save.mutate()
        }}
      >
        <Field label="Name">
          <Input
            required
            disabled={!isNew}
            value={form.name}
            onChange={(e) => setForm({ ...form, name: e.target.value })}
          />
        </Field>
        <label className="flex items-center gap-2">
          <input
            type="checkbox"
            checked={form.public}
            onChange={(e) => setForm({ ...form, public: e.target.checked })}
          />{' '}
          Public (anyone can read files by URL)
        </label>
        <Field label="File size limit (bytes, or 5MB, 1GB…; empty: the project's)">
          <Input value={form.limit} onChange={(e) => setForm({ ...form, limit: e.target.value })} />
        </Field>
        <Field label="Allowed MIME types (comma separated, image/*; empty: any)">
          <Input value={form.types} onChange={(e) => setForm({ ...form, types: e.target.value })} />
        </Field>
        <ErrorNote error={save.error} />
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={save.isPending}>
            {isNew ? 'Create bucket' : 'Save'}
          </Button>
        </div>
      </form>
    </Dialog>
  )
}
