import * as React from 'react'
import { Controller, useForm, useWatch, type FieldErrors } from 'react-hook-form'
import { zodResolver } from '@hookform/resolvers/zod'
import { useNavigate } from 'react-router-dom'
import { CalendarDays, Phone, RotateCw, TriangleAlert } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Calendar } from '@/components/ui/calendar'
import { Checkbox } from '@/components/ui/checkbox'
import { FieldError } from '@/components/ui/field-error'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { NativeSelect } from '@/components/ui/native-select'
import { RadioGroup, RadioGroupItem } from '@/components/ui/radio-group'
import { Textarea } from '@/components/ui/textarea'
import { PageHero, Section } from '@/site/layout/PageHero'
import { site } from '@/config/site'
import { describeError } from '@/lib/errors'
import { usePageMeta } from '@/lib/usePageMeta'
import { closedWeekdays } from '@/features/hours/week'
import { fetchRequestOptions, referenceOf, submitBouquetRequest } from './api'
import { keepConfirmation } from './confirmation'
import {
  BOUQUET_LIMITS,
  addDays,
  bouquetColors,
  bouquetOccasions,
  bouquetSizes,
  cutoffLabel,
  defaultOptions,
  designStyles,
  fulfilments,
  dateProblem,
  longDate,
  makeBouquetSchema,
  price,
  type BouquetRequest,
  type RequestOptions,
} from './schema'

export const BOUQUET_SUBMIT_DELAY_MS = 1000

const swatch: Record<string, string> = {
  Pink: '#f5a3b8',
  Yellow: '#f7d154',
  Whites: '#fbfaf5',
  Purples: '#a682cf',
  Reds: '#c2323f',
  Oranges: '#f08a4b',
  Blues: '#6d8fd6',
  Greens: '#7fa86f',
}

/** The fields in the order the form shows them, with the element that takes focus for each. */
const fieldOrder: [keyof BouquetRequest, string, string][] = [
  ['size', 'size-good', 'Size'],
  ['colors', 'color-Pink', 'Colors'],
  ['designStyle', 'style-modern', 'Design style'],
  ['occasion', 'occasion', 'Occasion'],
  ['specialRequests', 'specialRequests', 'Special requests'],
  ['fulfilment', 'fulfilment-delivery', 'Delivery or pick-up'],
  ['wantedOn', 'wantedOn', 'Date'],
  ['recipientName', 'recipientName', 'Recipient name'],
  ['recipientPhone', 'recipientPhone', 'Recipient phone'],
  ['deliveryAddress', 'deliveryAddress', 'Delivery address'],
  ['cardMessage', 'cardMessage', 'Card message'],
  ['customerName', 'customerName', 'Name'],
  ['customerPhone', 'customerPhone', 'Phone'],
  ['customerEmail', 'customerEmail', 'E-mail'],
]

function Fieldset({
  legend,
  error,
  errorId,
  children,
}: {
  legend: string
  error?: string
  errorId: string
  children: React.ReactNode
}) {
  return (
    <fieldset className="space-y-3" aria-describedby={error ? errorId : undefined}>
      <legend className="mb-2 font-display text-2xl font-semibold">{legend}</legend>
      {children}
      <FieldError id={errorId} message={error} />
    </fieldset>
  )
}

/** One choice of a radio group, as a card: its label and an optional note under it. */
function ChoiceCard({
  id,
  value,
  label,
  note,
}: {
  id: string
  value: string
  label: string
  note?: string
}) {
  return (
    <Label
      htmlFor={id}
      className="flex cursor-pointer items-center gap-3 rounded-md border p-4 hover:bg-rose-100 has-[[data-state=checked]]:border-primary has-[[data-state=checked]]:bg-rose-100"
    >
      <RadioGroupItem id={id} value={value} />
      <span>
        <span className="block font-bold">{label}</span>
        {note && <span className="block text-xs font-normal text-muted-foreground">{note}</span>}
      </span>
    </Label>
  )
}

/** The form's problems at the top, each a link to its field: focused when a submit is refused. */
function ErrorSummary({
  errors,
  summaryRef,
}: {
  errors: FieldErrors<BouquetRequest>
  summaryRef: React.Ref<HTMLDivElement>
}) {
  const listed = fieldOrder.filter(([name]) => errors[name]?.message)
  if (listed.length === 0) return null
  return (
    <div
      ref={summaryRef}
      tabIndex={-1}
      role="alert"
      aria-labelledby="form-errors-title"
      className="rounded-md border-2 border-destructive bg-rose-50 p-4 focus:outline-none focus-visible:ring-2 focus-visible:ring-ring"
    >
      <h2 id="form-errors-title" className="font-semibold text-destructive">
        Please check {listed.length === 1 ? 'one field' : `${listed.length} fields`}
      </h2>
      <ul className="mt-2 list-disc space-y-1 pl-5 text-sm">
        {listed.map(([name, target, label]) => (
          <li key={name}>
            <a
              href={`#${target}`}
              className="underline"
              onClick={(e) => {
                e.preventDefault()
                document.getElementById(target)?.focus()
              }}
            >
              {label}: {errors[name]?.message as string}
            </a>
          </li>
        ))}
      </ul>
    </div>
  )
}

/** A send that failed: everything typed stays; try again or call. */
function SendFailure({
  message,
  onRetry,
  busy,
  failureRef,
}: {
  message: string
  onRetry: () => void
  busy: boolean
  failureRef: React.Ref<HTMLDivElement>
}) {
  return (
    <div
      ref={failureRef}
      tabIndex={-1}
      role="alert"
      className="space-y-3 rounded-md border-2 border-destructive bg-rose-50 p-4 focus:outline-none focus-visible:ring-2 focus-visible:ring-ring"
    >
      <p className="flex items-center gap-2 font-semibold text-destructive">
        <TriangleAlert className="size-5" aria-hidden="true" /> Your request was not sent
      </p>
      <p className="text-sm">{message} Everything you typed is still here.</p>
      <div className="flex flex-wrap gap-3">
        <Button type="button" onClick={onRetry} disabled={busy}>
          <RotateCw aria-hidden="true" /> {busy ? 'Trying again…' : 'Try again'}
        </Button>
        <Button type="button" variant="outline" asChild>
          <a href={site.phoneHref}>
            <Phone aria-hidden="true" /> Call {site.phone}
          </a>
        </Button>
      </div>
    </div>
  )
}

export default function BuildBouquetPage() {
  usePageMeta(
    'Build Your Bouquet',
    'Request a custom bouquet for delivery or pick-up: choose the size, colours, style, occasion and day.',
  )
  const navigate = useNavigate()
  const [options, setOptions] = React.useState<RequestOptions>(() => defaultOptions())
  React.useEffect(() => {
    void fetchRequestOptions().then(setOptions)
  }, [])
  const schema = React.useMemo(() => makeBouquetSchema(options), [options])
  const {
    register,
    control,
    handleSubmit,
    setValue,
    formState: { errors, isSubmitting, isSubmitted },
  } = useForm<BouquetRequest>({
    resolver: zodResolver(schema),
    shouldFocusError: false,
    defaultValues: {
      colors: [],
      namedArrangement: '',
      specialRequests: '',
      customerName: '',
      customerPhone: '',
      customerEmail: '',
      wantedOn: '',
      recipientName: '',
      recipientPhone: '',
      deliveryAddress: '',
      cardMessage: '',
      website: '',
    },
  })
  const fulfilment = useWatch({ control, name: 'fulfilment' })
  const wantedOn = useWatch({ control, name: 'wantedOn' })
  const [calendarOpen, setCalendarOpen] = React.useState(false)
  const summaryRef = React.useRef<HTMLDivElement>(null)
  const failureRef = React.useRef<HTMLDivElement>(null)
  // One id per request: sending again after a lost answer cannot make a second request.
  const requestId = React.useRef(crypto.randomUUID())
  const [failure, setFailure] = React.useState<string | null>(null)
  const [invalidTries, setInvalidTries] = React.useState(0)

  // Once per refused submit, as soon as the summary shows (the errors arrive after the refusal).
  const focusedTry = React.useRef(0)
  React.useEffect(() => {
    if (invalidTries > focusedTry.current && summaryRef.current) {
      focusedTry.current = invalidTries
      summaryRef.current.focus()
    }
  })
  React.useEffect(() => {
    if (failure) failureRef.current?.focus()
  }, [failure])

  // The request goes to the shop while 'Submitting...' shows for about a second (SPEC.md §4).
  const onSubmit = async (data: BouquetRequest) => {
    setFailure(null)
    const [error] = await Promise.all([
      submitBouquetRequest(data, requestId.current).catch((e: unknown) => ({
        message: e instanceof Error ? e.message : String(e),
        code: '',
      })),
      new Promise((r) => setTimeout(r, BOUQUET_SUBMIT_DELAY_MS)),
    ])
    if (error) {
      setFailure(describeError(error))
      return
    }
    const reference = referenceOf(requestId.current)
    keepConfirmation(reference, data, options.sizePrices?.[data.size])
    requestId.current = crypto.randomUUID()
    navigate(`/build-bouquet/sent/${reference}`)
  }
  const submit = handleSubmit(onSubmit, () => setInvalidTries((n) => n + 1))
  const invalid = (name: keyof BouquetRequest) => (errors[name] ? true : undefined)
  const closedAhead = options.closed.slice(0, 3)
  const closedDays = closedWeekdays(options.week)
  const dateLabel = fulfilment === 'pickup' ? 'Pick-up date' : 'Delivery date'
  // The calendar greys out what the database would refuse, and says why.
  const unavailable = (day: string) => {
    const problem = dateProblem(day, options)
    if (!problem) return null
    if (problem.startsWith('Same-day'))
      return `same-day orders close at ${cutoffLabel(options.sameDayCutoff)}`
    const note = options.closed.find((c) => c.day === day)?.note
    return note ? `closed (${note})` : 'closed'
  }
  const chooseDay = (day: string) => {
    setValue('wantedOn', day, { shouldDirty: true, shouldValidate: isSubmitted })
    setCalendarOpen(false)
    document.getElementById('wantedOn')?.focus()
  }

  return (
    <>
      <PageHero
        title="Build Your Bouquet"
        subtitle="Tell us what you love and we will design it by hand. We call you within 24 hours to confirm."
      />
      <Section className="max-w-3xl">
        <form
          onSubmit={submit}
          noValidate
          className="relative space-y-10 rounded-lg border bg-card p-6 shadow-sm sm:p-8"
          aria-label="Bouquet request"
        >
          <ErrorSummary errors={errors} summaryRef={summaryRef} />
          <Fieldset legend="Size" error={errors.size?.message} errorId="size-error">
            <Controller
              control={control}
              name="size"
              render={({ field }) => (
                <RadioGroup
                  value={field.value ?? ''}
                  onValueChange={field.onChange}
                  className="grid-cols-1 sm:grid-cols-3"
                  aria-label="Size"
                  aria-invalid={invalid('size')}
                >
                  {bouquetSizes.map((s) => {
                    const amount = options.sizePrices?.[s.value]
                    const label = amount === undefined ? s.label : `${s.label} · ${price(amount)}`
                    return (
                      <ChoiceCard
                        key={s.value}
                        id={`size-${s.value}`}
                        value={s.value}
                        label={label}
                        note={s.note}
                      />
                    )
                  })}
                </RadioGroup>
              )}
            />
            {options.sizePrices && (
              <p className="text-sm text-muted-foreground">
                Prices are a starting point; delivery is extra and depends on the distance. We
                confirm the total when we call.
              </p>
            )}
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
                      <Label
                        key={c}
                        htmlFor={`color-${c}`}
                        className="flex cursor-pointer items-center gap-2 rounded-md border p-3 hover:bg-rose-100"
                      >
                        <Checkbox
                          id={`color-${c}`}
                          checked={checked}
                          aria-invalid={invalid('colors')}
                          onCheckedChange={(v) =>
                            field.onChange(
                              v
                                ? [...(field.value ?? []), c]
                                : (field.value ?? []).filter((x) => x !== c),
                            )
                          }
                        />
                        <span
                          className="size-4 rounded-full border"
                          style={{ background: swatch[c] }}
                          aria-hidden="true"
                        />
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
                <RadioGroup
                  value={field.value ?? ''}
                  onValueChange={field.onChange}
                  className="grid-cols-1 sm:grid-cols-3"
                  aria-label="Design style"
                  aria-invalid={invalid('designStyle')}
                >
                  {designStyles.map((s) => (
                    <ChoiceCard
                      key={s.value}
                      id={`style-${s.value}`}
                      value={s.value}
                      label={s.label}
                    />
                  ))}
                </RadioGroup>
              )}
            />
          </Fieldset>

          <div className="grid gap-6 sm:grid-cols-2">
            <div className="space-y-2">
              <Label htmlFor="occasion">Occasion</Label>
              <NativeSelect
                id="occasion"
                defaultValue=""
                aria-invalid={invalid('occasion')}
                aria-describedby="occasion-error"
                {...register('occasion', { setValueAs: (v) => (v === '' ? undefined : v) })}
              >
                <option value="" disabled>
                  Select an occasion
                </option>
                {bouquetOccasions.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </NativeSelect>
              <FieldError id="occasion-error" message={errors.occasion?.message} />
            </div>
            <div className="space-y-2">
              <Label htmlFor="namedArrangement">Named arrangement (optional)</Label>
              <NativeSelect id="namedArrangement" {...register('namedArrangement')}>
                <option value="">No preference</option>
                {site.namedArrangements.map((n) => (
                  <option key={n} value={n}>
                    The {n}
                  </option>
                ))}
              </NativeSelect>
            </div>
          </div>

          <div className="space-y-2">
            <Label htmlFor="specialRequests">Special requests (optional)</Label>
            <Textarea
              id="specialRequests"
              placeholder="Favourite flowers, allergies, anything we should know…"
              aria-invalid={invalid('specialRequests')}
              aria-describedby="special-error"
              {...register('specialRequests')}
            />
            <FieldError id="special-error" message={errors.specialRequests?.message} />
          </div>

          <Fieldset
            legend="Delivery or Pick-up"
            error={errors.fulfilment?.message}
            errorId="fulfilment-error"
          >
            <Controller
              control={control}
              name="fulfilment"
              render={({ field }) => (
                <RadioGroup
                  value={field.value ?? ''}
                  onValueChange={field.onChange}
                  className="grid-cols-1 sm:grid-cols-2"
                  aria-label="Delivery or pick-up"
                  aria-invalid={invalid('fulfilment')}
                >
                  {fulfilments.map((f) => (
                    <ChoiceCard
                      key={f.value}
                      id={`fulfilment-${f.value}`}
                      value={f.value}
                      label={f.label}
                      note={f.note}
                    />
                  ))}
                </RadioGroup>
              )}
            />
            <div className="space-y-2">
              <Label htmlFor="wantedOn">{dateLabel}</Label>
              <div className="flex flex-wrap items-center gap-2">
                <Input
                  id="wantedOn"
                  type="date"
                  min={options.today}
                  max={addDays(options.today, 365)}
                  className="max-w-xs"
                  aria-invalid={invalid('wantedOn')}
                  aria-describedby="date-note date-error"
                  {...register('wantedOn')}
                />
                <Button
                  type="button"
                  variant="outline"
                  aria-expanded={calendarOpen}
                  aria-controls="wanted-calendar"
                  onClick={() => setCalendarOpen((o) => !o)}
                >
                  <CalendarDays aria-hidden="true" />{' '}
                  {calendarOpen ? 'Hide the calendar' : 'Choose on the calendar'}
                </Button>
              </div>
              {calendarOpen && (
                <Calendar
                  id="wanted-calendar"
                  label={fulfilment === 'pickup' ? 'Pick-up days' : 'Delivery days'}
                  selected={wantedOn}
                  onSelect={chooseDay}
                  min={options.today}
                  max={addDays(options.today, 365)}
                  unavailable={unavailable}
                />
              )}
              <p id="date-note" className="text-sm text-muted-foreground">
                Same-day orders must be placed before {cutoffLabel(options.sameDayCutoff)} (Mountain
                Time).
                {closedDays.length > 0 && <> We are closed on {closedDays.join(' and ')}.</>}
                {closedAhead.length > 0 && (
                  <>
                    {' '}
                    We are {closedDays.length > 0 ? 'also ' : ''}closed on{' '}
                    {closedAhead.map((c) => `${longDate(c.day)} (${c.note})`).join(', ')}.
                  </>
                )}
              </p>
              <FieldError id="date-error" message={errors.wantedOn?.message} />
            </div>
            {fulfilment === 'delivery' && (
              <div className="grid gap-6 sm:grid-cols-2">
                <div className="space-y-2">
                  <Label htmlFor="recipientName">Recipient name</Label>
                  <Input
                    id="recipientName"
                    autoComplete="off"
                    aria-invalid={invalid('recipientName')}
                    aria-describedby="recipient-error"
                    {...register('recipientName')}
                  />
                  <FieldError id="recipient-error" message={errors.recipientName?.message} />
                </div>
                <div className="space-y-2">
                  <Label htmlFor="recipientPhone">Recipient phone (optional)</Label>
                  <Input
                    id="recipientPhone"
                    type="tel"
                    autoComplete="off"
                    aria-invalid={invalid('recipientPhone')}
                    aria-describedby="recipient-phone-error"
                    {...register('recipientPhone')}
                  />
                  <FieldError id="recipient-phone-error" message={errors.recipientPhone?.message} />
                </div>
                <div className="space-y-2 sm:col-span-2">
                  <Label htmlFor="deliveryAddress">Delivery address</Label>
                  <Textarea
                    id="deliveryAddress"
                    rows={2}
                    autoComplete="off"
                    placeholder="Street, city, ZIP"
                    aria-invalid={invalid('deliveryAddress')}
                    aria-describedby="address-error"
                    {...register('deliveryAddress')}
                  />
                  <FieldError id="address-error" message={errors.deliveryAddress?.message} />
                </div>
              </div>
            )}
            <div className="space-y-2">
              <Label htmlFor="cardMessage">Card message (optional)</Label>
              <Textarea
                id="cardMessage"
                rows={2}
                maxLength={BOUQUET_LIMITS.cardMessage}
                placeholder="Happy birthday, Mom! Love, Sam"
                aria-invalid={invalid('cardMessage')}
                aria-describedby="card-error"
                {...register('cardMessage')}
              />
              <FieldError id="card-error" message={errors.cardMessage?.message} />
            </div>
          </Fieldset>

          <fieldset className="grid gap-6 sm:grid-cols-3">
            <legend className="mb-2 font-display text-2xl font-semibold">Your Details</legend>
            <div className="space-y-2">
              <Label htmlFor="customerName">Name</Label>
              <Input
                id="customerName"
                autoComplete="name"
                aria-invalid={invalid('customerName')}
                aria-describedby="name-error"
                {...register('customerName')}
              />
              <FieldError id="name-error" message={errors.customerName?.message} />
            </div>
            <div className="space-y-2">
              <Label htmlFor="customerPhone">Phone</Label>
              <Input
                id="customerPhone"
                type="tel"
                autoComplete="tel"
                aria-invalid={invalid('customerPhone')}
                aria-describedby="phone-error"
                {...register('customerPhone')}
              />
              <FieldError id="phone-error" message={errors.customerPhone?.message} />
            </div>
            <div className="space-y-2">
              <Label htmlFor="customerEmail">E-mail</Label>
              <Input
                id="customerEmail"
                type="email"
                autoComplete="email"
                aria-invalid={invalid('customerEmail')}
                aria-describedby="email-error"
                {...register('customerEmail')}
              />
              <FieldError id="email-error" message={errors.customerEmail?.message} />
            </div>
          </fieldset>

          {/* The honeypot: off-screen and skipped by keyboard and screen readers, so only bots fill it. */}
          <div className="absolute -left-[9999px] h-px w-px overflow-hidden" aria-hidden="true">
            <label htmlFor="website">Leave this field empty</label>
            <input
              id="website"
              type="text"
              tabIndex={-1}
              autoComplete="off"
              {...register('website')}
            />
          </div>

          {failure && (
            <SendFailure
              message={failure}
              onRetry={() => void submit()}
              busy={isSubmitting}
              failureRef={failureRef}
            />
          )}
          <Button type="submit" size="lg" className="w-full sm:w-auto" disabled={isSubmitting}>
            {isSubmitting ? 'Submitting...' : 'Submit Bouquet Request'}
          </Button>
        </form>
      </Section>
    </>
  )
}
