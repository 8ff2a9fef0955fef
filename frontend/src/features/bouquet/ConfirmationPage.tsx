import { Link, useParams } from 'react-router-dom'
import { CheckCircle2, Mail, Phone, Printer, SearchX } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { DetailRow } from '@/components/ui/detail-row'
import { PageHero, Section } from '@/site/layout/PageHero'
import { site } from '@/config/site'
import { usePageMeta } from '@/lib/usePageMeta'
import { readConfirmation } from './confirmation'
import { fulfilmentLabel, longDate, occasionLabel, price, sizeLabel, styleLabel } from './schema'

/** After a request is sent: its reference, what was asked for, and what happens next. */
export default function ConfirmationPage() {
  const { reference = '' } = useParams()
  const kept = readConfirmation(reference)
  if (!kept) return <UnknownReference reference={reference} />
  return <Received reference={reference} kept={kept} />
}

/** A reference this browser did not send (a typo, another device, an old link): said plainly,
 * with how to reach the shop, never a believable "received". */
function UnknownReference({ reference }: { reference: string }) {
  const shown = /^[0-9A-F]{8}$/i.test(reference) ? reference.toUpperCase() : null
  usePageMeta('Request not found', `${site.name} cannot show this bouquet request.`)
  return (
    <>
      <PageHero title="Request Not Found" subtitle="We cannot show this request here." />
      <Section className="max-w-3xl">
        <div className="space-y-5 rounded-lg border bg-card p-6 shadow-sm sm:p-8">
          <p className="flex items-start gap-3 text-lg">
            <SearchX className="mt-1 size-7 shrink-0 text-rose-600" aria-hidden="true" />
            <span>
              {shown ? (
                <>
                  There is no request <strong className="font-mono tracking-wider">{shown}</strong>{' '}
                  sent from this browser.
                </>
              ) : (
                <>This is not a request reference.</>
              )}{' '}
              A request sent from another device or browser is still with us: its reference is in
              the e-mail we sent you.
            </span>
          </p>
          <p>To ask about a request, or if you did not get our e-mail, please contact the shop:</p>
          <ul className="space-y-2">
            <li className="flex items-center gap-3">
              <Phone className="size-5 text-rose-600" aria-hidden="true" />
              <a className="font-semibold text-rose-700 underline" href={site.phoneHref}>
                Call {site.phone}
              </a>
            </li>
            <li className="flex items-center gap-3">
              <Mail className="size-5 text-rose-600" aria-hidden="true" />
              <a className="font-semibold text-rose-700 underline" href={`mailto:${site.email}`}>
                Write to {site.email}
              </a>
            </li>
          </ul>
          <Button asChild>
            <Link to="/build-bouquet">Request a bouquet</Link>
          </Button>
        </div>
      </Section>
    </>
  )
}

function Received({
  reference,
  kept,
}: {
  reference: string
  kept: NonNullable<ReturnType<typeof readConfirmation>>
}) {
  usePageMeta('Request received', `Your bouquet request ${reference} reached ${site.name}.`)
  const r = kept.request
  return (
    <>
      <PageHero
        title="Request Received"
        subtitle="Thank you! We will call you within 24 hours to confirm the details and the price."
      />
      <Section className="max-w-3xl">
        <div className="space-y-6 rounded-lg border bg-card p-6 shadow-sm sm:p-8">
          <p className="flex items-center gap-3 text-lg">
            <CheckCircle2 className="size-7 shrink-0 text-sage-700" aria-hidden="true" />
            <span>
              Your reference is{' '}
              <strong className="font-mono text-xl tracking-wider">{reference}</strong>. Please have
              it ready when you call us.
            </span>
          </p>
          <section aria-labelledby="summary-heading">
            <h2 id="summary-heading" className="font-display text-2xl font-semibold">
              Your request
            </h2>
            <dl className="mt-2">
              <DetailRow
                className="border-b py-2 last:border-b-0"
                label={r.fulfilment === 'pickup' ? 'Pick-up' : 'Delivery'}
              >
                {r.wantedOn ? longDate(r.wantedOn) : fulfilmentLabel(r.fulfilment)}
              </DetailRow>
              {r.fulfilment === 'delivery' && (
                <>
                  <DetailRow className="border-b py-2 last:border-b-0" label="Recipient">
                    {r.recipientName}
                    {r.recipientPhone ? `, ${r.recipientPhone}` : ''}
                  </DetailRow>
                  <DetailRow className="border-b py-2 last:border-b-0" label="Address">
                    <span className="whitespace-pre-wrap">{r.deliveryAddress}</span>
                  </DetailRow>
                </>
              )}
              <DetailRow className="border-b py-2 last:border-b-0" label="Card message">
                {r.cardMessage || 'None'}
              </DetailRow>
              <DetailRow className="border-b py-2 last:border-b-0" label="Size">
                {sizeLabel(r.size)}
                {kept.price !== undefined && ` · from ${price(kept.price)}`}
              </DetailRow>
              <DetailRow className="border-b py-2 last:border-b-0" label="Colors">
                {r.colors.join(', ')}
              </DetailRow>
              <DetailRow className="border-b py-2 last:border-b-0" label="Design style">
                {styleLabel(r.designStyle)}
              </DetailRow>
              <DetailRow className="border-b py-2 last:border-b-0" label="Occasion">
                {occasionLabel(r.occasion)}
              </DetailRow>
              <DetailRow className="border-b py-2 last:border-b-0" label="Named arrangement">
                {r.namedArrangement ? `The ${r.namedArrangement}` : 'No preference'}
              </DetailRow>
              <DetailRow className="border-b py-2 last:border-b-0" label="Special requests">
                <span className="whitespace-pre-wrap">{r.specialRequests || 'None'}</span>
              </DetailRow>
              <DetailRow className="border-b py-2 last:border-b-0" label="We will call">
                {r.customerName}, {r.customerPhone}
              </DetailRow>
              <DetailRow className="border-b py-2 last:border-b-0" label="Confirmation sent to">
                {r.customerEmail}
              </DetailRow>
            </dl>
          </section>
          <p className="text-muted-foreground">
            Questions or changes? Call us on{' '}
            <a className="font-semibold text-rose-700 underline" href={site.phoneHref}>
              {site.phone}
            </a>{' '}
            and quote your reference.
          </p>
          <div className="flex flex-wrap gap-3 print:hidden">
            <Button type="button" variant="outline" onClick={() => window.print()}>
              <Printer aria-hidden="true" /> Print this page
            </Button>
            <Button asChild>
              <Link to="/build-bouquet">Request another bouquet</Link>
            </Button>
          </div>
        </div>
      </Section>
    </>
  )
}
