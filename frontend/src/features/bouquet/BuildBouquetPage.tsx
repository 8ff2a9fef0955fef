import * as React from 'react'
import { Controller, useForm } from 'react-hook-form'
import { zodResolver } from '@hookform/resolvers/zod'
import { Button } from '@/components/ui/button'
import { Checkbox } from '@/components/ui/checkbox'
import { FieldError } from '@/components/ui/field-error'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { NativeSelect } from '@/components/ui/native-select'
import { RadioGroup, RadioGroupItem } from '@/components/ui/radio-group'
import { Textarea } from '@/components/ui/textarea'
import { toast } from '@/components/ui/use-toast'
import { PageHero, Section } from '@/site/layout/PageHero'
import { site } from '@/config/site'
import { describeError } from '@/lib/errors'
import { usePageMeta } from '@/lib/usePageMeta'
import { submitBouquetRequest } from './api'
import { bouquetColors, bouquetOccasions, bouquetSchema, bouquetSizes, designStyles, type BouquetRequest } from './schema'

export const BOUQUET_SUBMIT_DELAY_MS = 1000

const swatch: Record<string, string> = {
  Pink: '#f5a3b8', Yellow: '#f7d154', Whites: '#fbfaf5', Purples: '#a682cf',
  Reds: '#c2323f', Oranges: '#f08a4b', Blues: '#6d8fd6', Greens: '#7fa86f',
}

function Fieldset({ legend, error, errorId, children }: { legend: string; error?: string; errorId: string; children: React.ReactNode }) {
  return (
    <fieldset className="space-y-3" aria-describedby={error ? errorId : undefined}>
      <legend className="mb-2 font-display text-2xl font-semibold">{legend}</legend>
      {children}
      <FieldError id={errorId} message={error} />
    </fieldset>
  )
}

export default function BuildBouquetPage() {
  usePageMeta('Build Your Bouquet', 'Request a custom bouquet: choose the size, colours, style and occasion.')
  const {
    register,
    control,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<BouquetRequest>({
    resolver: zodResolver(bouquetSchema),
    defaultValues: { colors: [], namedArrangement: '', specialRequests: '', customerName: '', customerPhone: '', customerEmail: '', website: '' },
  })

  // The request goes to the shop while 'Submitting...' shows for about a second (SPEC.md §4);
  // when it fails, the form keeps everything the visitor typed.
  const onSubmit = async (data: BouquetRequest) => {
    const [error] = await Promise.all([
      submitBouquetRequest(data).catch((e: unknown) => ({ message: e instanceof Error ? e.message : String(e), code: '' })),
      new Promise((r) => setTimeout(r, BOUQUET_SUBMIT_DELAY_MS)),
    ])
    if (error) {
      toast({
        variant: 'destructive',
        title: 'Your request was not sent',
        description: `${describeError(error)} You can also call us on ${site.phone}.`,
      })
      return
    }
    toast({
      variant: 'success',
      title: 'Bouquet request received!',
      description: 'Thank you! We will call you within 24 hours to confirm the details.',
    })
    reset()
  }

  return (
    <>
      <PageHero title="Build Your Bouquet" subtitle="Tell us what you love and we will design it by hand. We call you within 24 hours to confirm." />
      <Section className="max-w-3xl">
        <form onSubmit={handleSubmit(onSubmit)} noValidate className="relative space-y-10 rounded-lg border bg-card p-6 shadow-sm sm:p-8">
          <Fieldset legend="Size" error={errors.size?.message} errorId="size-error">
            <Controller
              control={control}
              name="size"
              render={({ field }) => (
                <RadioGroup value={field.value ?? ''} onValueChange={field.onChange} className="grid-cols-1 sm:grid-cols-3" aria-label="Size">
                  {bouquetSizes.map((s) => (
                    <Label key={s.value} htmlFor={`size-${s.value}`} className="flex cursor-pointer items-center gap-3 rounded-md border p-4 hover:bg-rose-100 has-[[data-state=checked]]:border-primary has-[[data-state=checked]]:bg-rose-100">
                      <RadioGroupItem id={`size-${s.value}`} value={s.value} />
                      <span>
                        <span className="block font-bold">{s.label}</span>
                        <span className="block text-xs font-normal text-muted-foreground">{s.note}</span>
                      </span>
                    </Label>
                  ))}
                </RadioGroup>
              )}
            />
          </Fieldset>

          <Fieldset legend="Colors" error={errors.colors?.message} errorId="colors-error">
            <Controller
              control={control}
              name="colors"
              render={({ field }) => (
                <div className="grid grid-cols-2 gap-3 sm:grid-cols-4">
                  {bouquetColors.map((c) => {
                    const checked = field.value?.includes(c) ?? false
                    return (
                      <Label key={c} htmlFor={`color-${c}`} className="flex cursor-pointer items-center gap-2 rounded-md border p-3 hover:bg-rose-100">
                        <Checkbox
                          id={`color-${c}`}
                          checked={checked}
                          onCheckedChange={(v) =>
                            field.onChange(v ? [...(field.value ?? []), c] : (field.value ?? []).filter((x) => x !== c))
                          }
                        />
                        <span className="size-4 rounded-full border" style={{ background: swatch[c] }} aria-hidden="true" />
                        {c}
                      </Label>
                    )
                  })}
                </div>
              )}
            />
          </Fieldset>

          <Fieldset legend="Design Style" error={errors.designStyle?.message} errorId="style-error">
            <Controller
              control={control}
              name="designStyle"
              render={({ field }) => (
                <RadioGroup value={field.value ?? ''} onValueChange={field.onChange} className="grid-cols-1 sm:grid-cols-3" aria-label="Design style">
                  {designStyles.map((s) => (
                    <Label key={s.value} htmlFor={`style-${s.value}`} className="flex cursor-pointer items-center gap-3 rounded-md border p-4 hover:bg-rose-100">
                      <RadioGroupItem id={`style-${s.value}`} value={s.value} />
                      {s.label}
                    </Label>
                  ))}
                </RadioGroup>
              )}
            />
          </Fieldset>

          <div className="grid gap-6 sm:grid-cols-2">
            <div className="space-y-2">
              <Label htmlFor="occasion">Occasion</Label>
              <NativeSelect id="occasion" defaultValue="" aria-invalid={!!errors.occasion} aria-describedby="occasion-error" {...register('occasion', { setValueAs: (v) => (v === '' ? undefined : v) })}>
                <option value="" disabled>Select an occasion</option>
                {bouquetOccasions.map((o) => (
                  <option key={o.value} value={o.value}>{o.label}</option>
                ))}
              </NativeSelect>
              <FieldError id="occasion-error" message={errors.occasion?.message} />
            </div>
            <div className="space-y-2">
              <Label htmlFor="namedArrangement">Named arrangement (optional)</Label>
              <NativeSelect id="namedArrangement" {...register('namedArrangement')}>
                <option value="">No preference</option>
                {site.namedArrangements.map((n) => (
                  <option key={n} value={n}>The {n}</option>
                ))}
              </NativeSelect>
            </div>
          </div>

          <div className="space-y-2">
            <Label htmlFor="specialRequests">Special requests (optional)</Label>
            <Textarea id="specialRequests" placeholder="Favourite flowers, a card message, delivery notes…" aria-invalid={!!errors.specialRequests} aria-describedby="special-error" {...register('specialRequests')} />
            <FieldError id="special-error" message={errors.specialRequests?.message} />
          </div>

          <fieldset className="grid gap-6 sm:grid-cols-3">
            <legend className="mb-2 font-display text-2xl font-semibold">Your Details</legend>
            <div className="space-y-2">
              <Label htmlFor="customerName">Name</Label>
              <Input id="customerName" autoComplete="name" aria-invalid={!!errors.customerName} aria-describedby="name-error" {...register('customerName')} />
              <FieldError id="name-error" message={errors.customerName?.message} />
            </div>
            <div className="space-y-2">
              <Label htmlFor="customerPhone">Phone</Label>
              <Input id="customerPhone" type="tel" autoComplete="tel" aria-invalid={!!errors.customerPhone} aria-describedby="phone-error" {...register('customerPhone')} />
              <FieldError id="phone-error" message={errors.customerPhone?.message} />
            </div>
            <div className="space-y-2">
              <Label htmlFor="customerEmail">E-mail</Label>
              <Input id="customerEmail" type="email" autoComplete="email" aria-invalid={!!errors.customerEmail} aria-describedby="email-error" {...register('customerEmail')} />
              <FieldError id="email-error" message={errors.customerEmail?.message} />
            </div>
          </fieldset>

          {/* The honeypot: off-screen and skipped by keyboard and screen readers, so only bots fill it. */}
          <div className="absolute -left-[9999px] h-px w-px overflow-hidden" aria-hidden="true">
            <label htmlFor="website">Leave this field empty</label>
            <input id="website" type="text" tabIndex={-1} autoComplete="off" {...register('website')} />
          </div>

          <Button type="submit" size="lg" className="w-full sm:w-auto" disabled={isSubmitting}>
            {isSubmitting ? 'Submitting...' : 'Submit Bouquet Request'}
          </Button>
        </form>
      </Section>
    </>
  )
}
