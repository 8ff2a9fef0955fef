import { ContactBlock } from '@/site/layout/ContactBlock'
import { PageHero, Section } from '@/site/layout/PageHero'
import { usePageMeta } from '@/lib/usePageMeta'

export default function Contact() {
  usePageMeta(
    'Contact Us',
    'Address, phone numbers, e-mail and opening hours of the shop, with a map.',
  )
  return (
    <>
      <PageHero
        title="Contact Us"
        subtitle="We'd love to hear from you. Get in touch with any questions about our flowers or services."
      />
      <Section>
        <ContactBlock heading="Find Us" />
      </Section>
    </>
  )
}
