import { PageHero, Section } from '@/site/layout/PageHero'
import { fullAddress, site } from '@/config/site'
import { usePageMeta } from '@/lib/usePageMeta'

const terms: { title: string; body: string }[] = [
  {
    title: 'General Terms',
    body: `By placing an order with ${site.name}, in the shop, by phone or online, you agree to these terms. We may update them from time to time; the version on this page applies to orders placed today.`,
  },
  {
    title: 'Order Acceptance',
    body: 'An order is accepted once we confirm it and receive payment. We may decline an order we cannot fulfil with the quality we expect of ourselves, and we will tell you as soon as we know.',
  },
  {
    title: 'Pricing & Payment',
    body: 'Prices are in US dollars. Payment is due when you place the order, by major credit cards, cash and other approved methods. Delivery fees vary by distance and are shown before you pay.',
  },
  {
    title: 'Delivery',
    body: 'Orders placed before 2:00 PM can be delivered the same day. Someone should be available to receive the flowers; if nobody is, we leave them in a safe place or return to the shop, and a redelivery fee may apply.',
  },
  {
    title: 'Product Substitutions',
    body: 'Flowers are seasonal. When a flower or container is not available, we substitute one of equal or greater value and keep the colour, style and feeling of the design.',
  },
  {
    title: 'Liability',
    body: 'Fresh flowers are perishable. We are not responsible for wilting caused by heat, cold or neglect after delivery. Our liability is limited to the price of the order.',
  },
  {
    title: 'Contact Information',
    body: `Questions about these terms? Call ${site.phone}, write to ${site.email} or visit us at ${fullAddress}.`,
  },
]

export function TermsConditions() {
  usePageMeta(
    'Terms & Conditions',
    'The terms that apply to orders, payment, delivery and substitutions.',
  )
  return (
    <>
      <PageHero title="Terms & Conditions" />
      <Section className="max-w-3xl">
        <ol className="space-y-8">
          {terms.map((t, i) => (
            <li key={t.title}>
              <h2 className="font-display text-2xl font-semibold">
                {i + 1}. {t.title}
              </h2>
              <p className="mt-2 leading-relaxed text-ink-700">{t.body}</p>
            </li>
          ))}
        </ol>
      </Section>
    </>
  )
}

export function Policies() {
  usePageMeta('Our Policies', 'Privacy, returns and refunds, delivery and flower care policies.')
  return (
    <>
      <PageHero title="Our Policies" />
      <Section className="max-w-3xl space-y-10 leading-relaxed text-ink-700">
        <section>
          <h2 className="font-display text-3xl font-semibold text-ink-900">Privacy Policy</h2>
          <p className="mt-2">
            We use your name, phone number, e-mail and delivery address only to take, deliver and
            follow up on your order. We never sell or share them for marketing. Card payments are
            handled by our payment provider; we do not store card numbers.
          </p>
        </section>
        <section>
          <h2 className="font-display text-3xl font-semibold text-ink-900">
            Return &amp; Refund Policy
          </h2>
          <p className="mt-2">
            Because flowers are perishable, we cannot accept returns of fresh flowers. If something
            is not right, contact us within 24 hours of delivery with a photo; refunds or
            replacements are at the shop&apos;s discretion.
          </p>
        </section>
        <section>
          <h2 className="font-display text-3xl font-semibold text-ink-900">Delivery Policy</h2>
          <ul className="mt-2 list-disc space-y-2 pl-5">
            <li>
              <strong>Areas:</strong> we deliver across {site.address.city} and nearby towns;
              delivery fees vary by distance.
            </li>
            <li>
              <strong>Times:</strong> same-day delivery for orders placed before 2:00 PM, Monday to
              Saturday.
            </li>
            <li>
              <strong>Requirements:</strong> a complete address and a phone number for the
              recipient. If nobody can receive the order, a redelivery fee may apply.
            </li>
            <li>
              <strong>Special occasions:</strong> around Valentine&apos;s Day, Mother&apos;s Day and
              prom we ask you to order early; delivery times may be wider on those days.
            </li>
          </ul>
          <p className="mt-2">Delivery complaints must reach us within 24 hours of delivery.</p>
        </section>
        <section>
          <h2 className="font-display text-3xl font-semibold text-ink-900">Flower Care Policy</h2>
          <p className="mt-2">
            Keep flowers in a cool spot away from direct sun. Change the water every 2-3 days, trim
            the stems at an angle and remove fading blooms. Plants come with their own care card.
          </p>
        </section>
      </Section>
    </>
  )
}
