import * as React from 'react'
import {
  Controller,
  useFieldArray,
  useForm,
  useWatch,
  type Control,
  type UseFormRegister,
} from 'react-hook-form'
import { zodResolver } from '@hookform/resolvers/zod'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { Trash2 } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { FieldError } from '@/components/ui/field-error'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { toast } from '@/components/ui/use-toast'
import { useFailureToast } from '@/admin/useFailureToast'
import { SaveFailure, useSave } from '@/admin/useSave'
import { Checkbox } from '@/components/ui/checkbox'
import { readShopWeek, rememberShopWeek, weekdayNames } from '@/features/hours/week'
import { hoursForm, hoursSchema, weekOf, type HoursForm } from '@/features/hours/schema'
import { bouquetSizes, longDate } from '@/features/bouquet/schema'
import { usePageMeta } from '@/lib/usePageMeta'
import { addClosure, removeClosure, saveHours, saveSettings, useClosures, useSettings } from './api'
import { closureSchema, settingsSchema, type ClosureForm, type SettingsForm } from './schema'

function Field({
  id,
  label,
  error,
  hint,
  children,
}: {
  id: string
  label: string
  error?: string
  hint?: string
  children: React.ReactNode
}) {
  return (
    <div className="space-y-2">
      <Label htmlFor={id}>{label}</Label>
      {children}
      {hint && (
        <p id={`${id}-hint`} className="text-sm text-muted-foreground">
          {hint}
        </p>
      )}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  )
}

/** The shop's name and address its mail is sent from, its prices and its same-day cut-off. */
function ShopSettings() {
  const current = useSettings()
  const client = useQueryClient()
  useFailureToast(current.error, 'Failed to fetch settings')
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting, isDirty },
  } = useForm<SettingsForm>({ resolver: zodResolver(settingsSchema) })
  React.useEffect(() => {
    if (current.data) reset(current.data)
  }, [current.data, reset])
  const save = useSave()
  const onSubmit = async (s: SettingsForm) => {
    if (!(await save.run(() => saveSettings(s)))) return
    reset(s)
    toast({ title: 'Settings saved' })
    void client.invalidateQueries({ queryKey: ['settings'] })
  }
  if (!current.data) return <p role="status">Loading…</p>
  const aria = (name: keyof SettingsForm, hint = false) => ({
    'aria-invalid': errors[name] ? true : undefined,
    'aria-describedby': `${name}-error${hint ? ` ${name}-hint` : ''}`,
  })
  return (
    <form
      onSubmit={handleSubmit(onSubmit)}
      noValidate
      className="space-y-6 rounded-lg border bg-card p-6"
      aria-labelledby="shop-heading"
    >
      <h2 id="shop-heading" className="font-display text-2xl font-semibold">
        The shop
      </h2>
      <div className="grid gap-6 sm:grid-cols-2">
        <Field
          id="shop_name"
          label="Shop name"
          error={errors.shop_name?.message}
          hint="The sender's name on the shop's e-mail."
        >
          <Input id="shop_name" {...aria('shop_name', true)} {...register('shop_name')} />
        </Field>
        <Field
          id="shop_email"
          label="Shop e-mail"
          error={errors.shop_email?.message}
          hint="Mail is sent from this address; customers' replies come here."
        >
          <Input
            id="shop_email"
            type="email"
            {...aria('shop_email', true)}
            {...register('shop_email')}
          />
        </Field>
        <Field id="shop_phone" label="Shop phone" error={errors.shop_phone?.message}>
          <Input id="shop_phone" type="tel" {...aria('shop_phone')} {...register('shop_phone')} />
        </Field>
        <Field
          id="site_url"
          label="Website address"
          error={errors.site_url?.message}
          hint="For the link to each request in the shop's mail."
        >
          <Input
            id="site_url"
            type="url"
            placeholder="https://bluebellandsage.com"
            {...aria('site_url', true)}
            {...register('site_url')}
          />
        </Field>
        <Field
          id="same_day_cutoff"
          label="Same-day orders until"
          error={errors.same_day_cutoff?.message}
          hint="Mountain Time."
        >
          <Input
            id="same_day_cutoff"
            type="time"
            className="max-w-40"
            {...aria('same_day_cutoff', true)}
            {...register('same_day_cutoff')}
          />
        </Field>
      </div>
      <fieldset className="space-y-3">
        <legend className="font-semibold">Bouquet prices (from)</legend>
        <div className="grid gap-4 sm:grid-cols-3">
          {bouquetSizes.map((s) => (
            <Field
              key={s.value}
              id={`price-${s.value}`}
              label={`${s.label} (${s.note.toLowerCase()}), $`}
              error={errors[s.value]?.message}
            >
              <Input
                id={`price-${s.value}`}
                type="number"
                min={0}
                step="0.01"
                aria-invalid={errors[s.value] ? true : undefined}
                aria-describedby={`price-${s.value}-error`}
                {...register(s.value, { valueAsNumber: true })}
              />
            </Field>
          ))}
        </div>
      </fieldset>
      <SaveFailure
        message={save.failure}
        onRetry={() => void handleSubmit(onSubmit)()}
        busy={isSubmitting}
      />
      <Button type="submit" disabled={isSubmitting || !isDirty}>
        {isSubmitting ? 'Saving…' : 'Save settings'}
      </Button>
    </form>
  )
}

/** One weekday's row: open or closed, and from when to when. */
function DayRow({
  index,
  control,
  register,
  errors,
}: {
  index: number
  control: Control<HoursForm>
  register: UseFormRegister<HoursForm>
  errors?: { opens?: { message?: string }; closes?: { message?: string } }
}) {
  const name = weekdayNames[index]
  const open = useWatch({ control, name: `days.${index}.open` })
  const opensError = errors?.opens?.message
  const closesError = errors?.closes?.message
  return (
    <tr className="border-t align-top" data-testid={`hours-${name}`}>
      <th scope="row" className="py-3 pr-2 sm:pr-4 text-left font-semibold">
        {name}
      </th>
      <td className="py-3 pr-2 sm:pr-4">
        <Controller
          control={control}
          name={`days.${index}.open`}
          render={({ field }) => (
            <Label htmlFor={`hours-${index}-open`} className="flex items-center gap-2 font-normal">
              <Checkbox
                id={`hours-${index}-open`}
                checked={field.value}
                onCheckedChange={(v) => field.onChange(v === true)}
                aria-label={`Open on ${name}s`}
              />
              Open
            </Label>
          )}
        />
      </td>
      <td className="py-3">
        {open ? (
          <div className="flex flex-wrap items-start gap-x-2 gap-y-1">
            <div className="space-y-1">
              <Input
                id={`hours-${index}-opens`}
                type="time"
                className="w-28 px-2"
                aria-label={`${name} opens at`}
                aria-invalid={opensError ? true : undefined}
                aria-describedby={`hours-${index}-opens-error`}
                {...register(`days.${index}.opens`)}
              />
              <FieldError id={`hours-${index}-opens-error`} message={opensError} />
            </div>
            <span className="py-2 text-muted-foreground" aria-hidden="true">
              to
            </span>
            <div className="space-y-1">
              <Input
                id={`hours-${index}-closes`}
                type="time"
                className="w-28 px-2"
                aria-label={`${name} closes at`}
                aria-invalid={closesError ? true : undefined}
                aria-describedby={`hours-${index}-closes-error`}
                {...register(`days.${index}.closes`)}
              />
              <FieldError id={`hours-${index}-closes-error`} message={closesError} />
            </div>
          </div>
        ) : (
          <span className="text-muted-foreground">Closed</span>
        )}
      </td>
    </tr>
  )
}

/** The shop's week: the site shows it, and no request is taken for a weekday it is closed. */
function OpeningHours() {
  const client = useQueryClient()
  const week = useQuery({ queryKey: ['settings', 'hours'], queryFn: readShopWeek })
  useFailureToast(week.error, 'Failed to fetch opening hours')
  const {
    register,
    control,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting, isDirty },
  } = useForm<HoursForm>({ resolver: zodResolver(hoursSchema) })
  const { fields } = useFieldArray({ control, name: 'days', keyName: 'key' })
  React.useEffect(() => {
    if (week.data) reset(hoursForm(week.data))
  }, [week.data, reset])
  const save = useSave()
  const onSubmit = async (f: HoursForm) => {
    if (!(await save.run(() => saveHours(weekOf(f))))) return
    rememberShopWeek(weekOf(f))
    reset(f)
    toast({ title: 'Opening hours saved' })
    void client.invalidateQueries({ queryKey: ['settings', 'hours'] })
  }
  return (
    <form
      onSubmit={handleSubmit(onSubmit)}
      noValidate
      className="space-y-4 rounded-lg border bg-card p-6"
      aria-labelledby="hours-heading"
    >
      <h2 id="hours-heading" className="font-display text-2xl font-semibold">
        Opening hours
      </h2>
      <p className="text-sm text-muted-foreground">
        Shown on the contact page and in the footer (Mountain Time). No pick-up or delivery is taken
        for a day the shop is closed.
      </p>
      {!week.data ? (
        <p role="status">Loading…</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-sm">
            <caption className="sr-only">Opening hours by weekday</caption>
            <thead>
              <tr className="text-left text-muted-foreground">
                <th scope="col" className="pb-2 font-normal">
                  Day
                </th>
                <th scope="col" className="pb-2 font-normal">
                  Open?
                </th>
                <th scope="col" className="pb-2 font-normal">
                  Hours
                </th>
              </tr>
            </thead>
            <tbody>
              {fields.map((f, i) => (
                <DayRow
                  key={f.key}
                  index={i}
                  control={control}
                  register={register}
                  errors={errors.days?.[i]}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <SaveFailure
        message={save.failure}
        onRetry={() => void handleSubmit(onSubmit)()}
        busy={isSubmitting}
      />
      <Button type="submit" disabled={isSubmitting || !isDirty}>
        {isSubmitting ? 'Saving…' : 'Save opening hours'}
      </Button>
    </form>
  )
}

/** Days the shop takes no orders for: the request form refuses them and says why. */
function Closures() {
  const closures = useClosures()
  const client = useQueryClient()
  useFailureToast(closures.error, 'Failed to fetch closed days')
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<ClosureForm>({
    resolver: zodResolver(closureSchema),
    defaultValues: { day: '', note: '' },
  })
  const refresh = () => void client.invalidateQueries({ queryKey: ['settings', 'closures'] })
  const save = useSave()
  const onSubmit = async (c: ClosureForm) => {
    if (!(await save.run(() => addClosure(c)))) return
    toast({ title: `Closed on ${longDate(c.day)}` })
    reset()
    refresh()
  }
  const removal = useSave()
  const [removing, setRemoving] = React.useState<string | null>(null)
  const lastRemoved = React.useRef('')
  const remove = async (day: string) => {
    lastRemoved.current = day
    setRemoving(day)
    const done = await removal.run(() => removeClosure(day))
    setRemoving(null)
    if (!done) return
    toast({ title: `Open on ${longDate(day)}` })
    refresh()
  }
  return (
    <section aria-labelledby="closures-heading" className="space-y-4 rounded-lg border bg-card p-6">
      <h2 id="closures-heading" className="font-display text-2xl font-semibold">
        Closed days
      </h2>
      <p className="text-sm text-muted-foreground">
        No requests are taken for these days; the request form tells customers why.
      </p>
      <ul className="divide-y" aria-label="Closed days">
        {(closures.data ?? []).map((c) => (
          <li key={c.day} className="flex items-center justify-between gap-3 py-2">
            <span>
              <time dateTime={c.day} className="font-semibold">
                {longDate(c.day)}
              </time>{' '}
              · {c.note}
            </span>
            <Button
              variant="outline"
              size="sm"
              onClick={() => void remove(c.day)}
              disabled={removing === c.day}
              aria-label={`Remove ${longDate(c.day)}`}
            >
              <Trash2 aria-hidden="true" /> Remove
            </Button>
          </li>
        ))}
        {closures.data?.length === 0 && (
          <li className="py-2 text-muted-foreground">No closed days ahead</li>
        )}
      </ul>
      <SaveFailure
        message={removal.failure}
        onRetry={() => void remove(lastRemoved.current)}
        busy={removing !== null}
        what="The change was"
      />
      <form
        onSubmit={handleSubmit(onSubmit)}
        noValidate
        className="grid gap-4 sm:grid-cols-[auto_1fr_auto] sm:items-end"
      >
        <Field id="closure-day" label="Date" error={errors.day?.message}>
          <Input
            id="closure-day"
            type="date"
            aria-invalid={errors.day ? true : undefined}
            aria-describedby="closure-day-error"
            {...register('day')}
          />
        </Field>
        <Field id="closure-note" label="Why" error={errors.note?.message}>
          <Input
            id="closure-note"
            placeholder="Thanksgiving"
            aria-invalid={errors.note ? true : undefined}
            aria-describedby="closure-note-error"
            {...register('note')}
          />
        </Field>
        <Button type="submit" variant="outline" disabled={isSubmitting}>
          Add closed day
        </Button>
        <div className="sm:col-span-3">
          <SaveFailure
            message={save.failure}
            onRetry={() => void handleSubmit(onSubmit)()}
            busy={isSubmitting}
            what="The closed day was"
          />
        </div>
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
        <p className="mt-1 text-muted-foreground">
          How the shop signs its mail, what bouquets cost, and when it takes orders.
        </p>
      </div>
      <ShopSettings />
      <OpeningHours />
      <Closures />
    </div>
  )
}
