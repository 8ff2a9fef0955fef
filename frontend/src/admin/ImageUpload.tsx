import * as React from 'react'
import { ImagePlus, X } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { toast } from '@/components/ui/use-toast'
import { describeError } from '@/lib/errors'
import {
  imageUrl,
  isObjectPath,
  removeImages,
  uploadImage,
  validateImageFile,
  type ImageBucket,
} from '@/lib/images'

/**
 * Uploads an image to a public bucket and reports its object name; shows a preview. An upload
 * this form made and then replaced or removed is deleted at once; the saved image (`saved`) is
 * removed by the save that stops using it.
 */
export function ImageUpload({
  bucket,
  value,
  saved,
  onChange,
  label,
}: {
  bucket: ImageBucket
  value: string
  saved: string | null
  onChange: (value: string) => void
  label: string
}) {
  const inputId = React.useId()
  const [busy, setBusy] = React.useState(false)
  const discard = (old: string) => {
    if (isObjectPath(old) && old !== saved) void removeImages(bucket, [old])
  }
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
      const name = await uploadImage(bucket, file)
      discard(value)
      onChange(name)
      toast({ title: 'Image uploaded successfully' })
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err)
      toast({
        variant: 'destructive',
        title: 'Upload failed',
        description: describeError({ message }),
      })
    } finally {
      setBusy(false)
    }
  }
  const src = imageUrl(bucket, value)
  return (
    <div className="space-y-2">
      <span className="text-sm font-semibold text-ink-700">{label}</span>
      <div className="flex items-center gap-4">
        <div className="flex size-24 items-center justify-center overflow-hidden rounded-md border bg-cream-200">
          {src ? (
            <img src={src} alt="Preview of the chosen file" className="size-full object-cover" />
          ) : (
            <span className="text-xs text-muted-foreground">No Image</span>
          )}
        </div>
        <div className="flex flex-col gap-2">
          <label
            htmlFor={inputId}
            className="inline-flex cursor-pointer items-center gap-2 rounded-md border border-input px-3 py-2 text-sm font-semibold hover:bg-accent"
          >
            <ImagePlus className="size-4" aria-hidden="true" />
            {busy ? 'Uploading…' : 'Upload image'}
          </label>
          <input
            id={inputId}
            type="file"
            accept="image/png,image/jpeg,image/webp"
            className="sr-only"
            onChange={onFile}
            disabled={busy}
            aria-label={`${label}: upload image`}
          />
          {value && (
            <Button
              type="button"
              variant="ghost"
              size="sm"
              onClick={() => {
                discard(value)
                onChange('')
              }}
            >
              <X aria-hidden="true" /> Remove
            </Button>
          )}
        </div>
      </div>
      <p className="text-xs text-muted-foreground">PNG, JPG or WEBP, less than 5MB.</p>
    </div>
  )
}
