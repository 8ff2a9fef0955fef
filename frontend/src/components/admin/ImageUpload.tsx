import * as React from 'react'
import { ImagePlus, X } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { toast } from '@/components/ui/use-toast'
import { supabase } from '@/lib/supabase'
import { validateImageFile } from '@/lib/schemas'

/** A random name, a timestamp and the original extension (SPEC.md §7). */
export function storageName(fileName: string, now = Date.now()): string {
  const ext = (fileName.split('.').pop() ?? 'png').toLowerCase().replace(/[^a-z0-9]/g, '') || 'png'
  return `${Math.random().toString(36).slice(2, 10)}-${now}.${ext}`
}

/** Uploads an image to a public bucket and reports its public URL; shows a preview. */
export function ImageUpload({
  bucket,
  value,
  onChange,
  label,
}: {
  bucket: 'product-images' | 'category-images'
  value: string
  onChange: (url: string) => void
  label: string
}) {
  const inputId = React.useId()
  const [busy, setBusy] = React.useState(false)
  const onFile = async (e: React.ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0]
    e.target.value = ''
    if (!file) return
    const problem = validateImageFile(file)
    if (problem) {
      toast({ variant: 'destructive', title: 'Upload failed', description: problem })
      return
    }
    setBusy(true)
    try {
      const name = storageName(file.name)
      const { error } = await supabase.storage.from(bucket).upload(name, file, { cacheControl: '3600', upsert: false })
      if (error) throw error
      const { data } = supabase.storage.from(bucket).getPublicUrl(name)
      onChange(data.publicUrl)
      toast({ title: 'Image uploaded successfully' })
    } catch (err) {
      toast({ variant: 'destructive', title: 'Upload failed', description: err instanceof Error ? err.message : String(err) })
    } finally {
      setBusy(false)
    }
  }
  return (
    <div className="space-y-2">
      <span className="text-sm font-semibold text-ink-700">{label}</span>
      <div className="flex items-center gap-4">
        <div className="flex size-24 items-center justify-center overflow-hidden rounded-md border bg-cream-200">
          {value ? <img src={value} alt="Preview of the chosen image" className="size-full object-cover" /> : <span className="text-xs text-muted-foreground">No Image</span>}
        </div>
        <div className="flex flex-col gap-2">
          <label htmlFor={inputId} className="inline-flex cursor-pointer items-center gap-2 rounded-md border border-input px-3 py-2 text-sm font-semibold hover:bg-accent">
            <ImagePlus className="size-4" aria-hidden="true" />
            {busy ? 'Uploading…' : 'Upload image'}
          </label>
          <input id={inputId} type="file" accept="image/png,image/jpeg,image/webp" className="sr-only" onChange={onFile} disabled={busy} aria-label={`${label}: upload image`} />
          {value && (
            <Button type="button" variant="ghost" size="sm" onClick={() => onChange('')}>
              <X aria-hidden="true" /> Remove
            </Button>
          )}
        </div>
      </div>
      <p className="text-xs text-muted-foreground">PNG, JPG or WEBP, less than 5MB.</p>
    </div>
  )
}
