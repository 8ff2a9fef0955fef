import * as React from 'react'
import { useForm } from 'react-hook-form'
import { zodResolver } from '@hookform/resolvers/zod'
import { useQueryClient } from '@tanstack/react-query'
import { Trash2 } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { FieldError } from '@/components/ui/field-error'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { toast } from '@/components/ui/use-toast'
import { useFailureToast } from '@/admin/useFailureToast'
import { bouquetSizes, longDate } from '@/features/bouquet/schema'
import { describeError } from '@/lib/errors'
import { usePageMeta } from '@/lib/usePageMeta'
import { addClosure, removeClosure, saveSettings, useClosures, useSettings } from './api'
import { closureSchema, settingsSchema, type ClosureForm, type SettingsForm } from './schema'

function Field({ id, label, error, hint, children }: { id: string; label: string; error?: string; hint?: string; children: React.ReactNode }) {
  return (
    <div className="space-y-2">
      <Label htmlFor={id}>{label}</Label>
      {children}
      {hint && <p id={`${id}-hint`} className="text-sm text-muted-foreground">{hint}</p>}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  )
}

/** The shop's name and address its mail is sent from, its prices and its same-day cut-off. */
function ShopSettings() {
  const current = useSettings()
  const client = useQueryClient()
  useFailureToast(current.error, 'Failed to fetch settings')
  const { register, handleSubmit, reset, formState: { errors, isSubmitting, isDirty } } = useForm<SettingsForm>({ resolver: zodResolver(settingsSchema) })
  React.useEffect(() => {
    if (current.data) reset(current.data)
  }, [current.data, reset])
  const onSubmit = async (s: SettingsForm) => {
    const { error } = await saveSettings(s)
    if (error) {
      toast({ variant: 'destructive', title: 'Error', description: describeError(error) })
      return
    }
    toast({ title: 'Settings saved' })
    void client.invalidateQueries({ queryKey: ['settings'] })
  }
  if (!current.data) return <p role="status">Loading…</p>
  const aria = (name: keyof SettingsForm, hint = false) => ({
    'aria-invalid': errors[name] ? true : undefined,
    'aria-describedby': `${name}-error${hint ? ` ${name}-hint` : ''}`,
  })
  return (
    <form onSubmit={handleSubmit(onSubmit)} noValidate className="space-y-6 rounded-lg border bg-card p-6" aria-labelledby="shop-heading">
      <h2 id="shop-heading" className="font-display text-2xl font-semibold">The shop</h2>
      <div className="grid gap-6 sm:grid-cols-2">
        <Field id="shop_name" label="Shop name" error={errors.shop_name?.message} hint="The sender's name on the shop's e-mail.">
          <Input id="shop_name" {...aria('shop_name', true)} {...register('shop_name')} />
        </Field>
        <Field id="shop_email" label="Shop e-mail" error={errors.shop_email?.message} hint="Mail is sent from this address; customers' replies come here.">
          <Input id="shop_email" type="email" {...aria('shop_email', true)} {...register('shop_email')} />
        </Field>
        <Field id="shop_phone" label="Shop phone" error={errors.shop_phone?.message}>
          <Input id="shop_phone" type="tel" {...aria('shop_phone')} {...register('shop_phone')} />
        </Field>
        <Field id="site_url" label="Website address" error={errors.site_url?.message} hint="For the link to each request in the shop's mail.">
          <Input id="site_url" type="url" placeholder="https://bluebellandsage.com" {...aria('site_url', true)} {...register('site_url')} />
        </Field>
        <Field id="same_day_cutoff" label="Same-day orders until" error={errors.same_day_cutoff?.message} hint="Mountain Time.">
          <Input id="same_day_cutoff" type="time" className="max-w-40" {...aria('same_day_cutoff', true)} {...register('same_day_cutoff')} />
        </Field>
      </div>
      <fieldset className="space-y-3">
        <legend className="font-semibold">Bouquet prices (from)</legend>
        <div className="grid gap-4 sm:grid-cols-3">
          {bouquetSizes.map((s) => (
            <Field key={s.value} id={`price-${s.value}`} label={`${s.label} (${s.note.toLowerCase()}), $`} error={errors[s.value]?.message}>
              <Input id={`price-${s.value}`} type="number" min={0} step="0.01" aria-invalid={errors[s.value] ? true : undefined} aria-describedby={`price-${s.value}-error`} {...register(s.value, { valueAsNumber: true })} />
            </Field>
          ))}
        </div>
      </fieldset>
      <Button type="submit" disabled={isSubmitting || !isDirty}>{isSubmitting ? 'Saving…' : 'Save settings'}</Button>
    </form>
  )
}

/** Days the shop takes no orders for: the request form refuses them and says why. */
function Closures() {
  const closures = useClosures()
  const client = useQueryClient()
  useFailureToast(closures.error, 'Failed to fetch closed days')
  const { register, handleSubmit, reset, formState: { errors, isSubmitting } } = useForm<ClosureForm>({ resolver: zodResolver(closureSchema), defaultValues: { day: '', note: '' } })
  const refresh = () => void client.invalidateQueries({ queryKey: ['settings', 'closures'] })
  const onSubmit = async (c: ClosureForm) => {
    const { error } = await addClosure(c)
    if (error) {
      toast({ variant: 'destructive', title: 'Error', description: describeError(error) })
      return
    }
    toast({ title: `Closed on ${longDate(c.day)}` })
    reset()
    refresh()
  }
  const remove = async (day: string) => {
    const { error } = await removeClosure(day)
    if (error) {
      toast({ variant: 'destructive', title: 'Error', description: describeError(error) })
      return
    }
    toast({ title: `Open on ${longDate(day)}` })
    refresh()
  }
  return (
    <section aria-labelledby="closures-heading" className="space-y-4 rounded-lg border bg-card p-6">
      <h2 id="closures-heading" className="font-display text-2xl font-semibold">Closed days</h2>
      <p className="text-sm text-muted-foreground">No requests are taken for these days; the request form tells customers why.</p>
      <ul className="divide-y" aria-label="Closed days">
        {(closures.data ?? []).map((c) => (
          <li key={c.day} className="flex items-center justify-between gap-3 py-2">
            <span><time dateTime={c.day} className="font-semibold">{longDate(c.day)}</time> · {c.note}</span>
            <Button variant="outline" size="sm" onClick={() => void remove(c.day)} aria-label={`Open on ${longDate(c.day)}`}><Trash2 aria-hidden="true" /> Remove</Button>
          </li>
        ))}
        {closures.data?.length === 0 && <li className="py-2 text-muted-foreground">No closed days ahead</li>}
      </ul>
      <form onSubmit={handleSubmit(onSubmit)} noValidate className="grid gap-4 sm:grid-cols-[auto_1fr_auto] sm:items-end">
        <Field id="closure-day" label="Date" error={errors.day?.message}>
          <Input id="closure-day" type="date" aria-invalid={errors.day ? true : undefined} aria-describedby="closure-day-error" {...register('day')} />
        </Field>
        <Field id="closure-note" label="Why" error={errors.note?.message}>
          <Input id="closure-note" placeholder="Thanksgiving" aria-invalid={errors.note ? true : undefined} aria-describedby="closure-note-error" {...register('note')} />
        </Field>
        <Button type="submit" variant="outline" disabled={isSubmitting}>Add closed day</Button>
      </form>
    </section>
  )
}

export default function SettingsPage() {
  usePageMeta('Settings', 'The shop’s settings')
  return (
    <div className="max-w-4xl space-y-6">
      <div>
        <h1 className="font-display text-4xl font-bold">Settings</h1>
        <p className="mt-1 text-muted-foreground">How the shop signs its mail, what bouquets cost, and when it takes orders.</p>
      </div>
      <ShopSettings />
      <Closures />
    </div>
  )
}
