import { Link } from 'react-router-dom'
import { Mail, Phone } from 'lucide-react'
import { PageHero, Section } from '@/site/layout/PageHero'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { site } from '@/config/site'
import { usePageMeta } from '@/lib/usePageMeta'

const menu: [string, string][] = [
  ['Bridal bouquet', 'Hand-tied, cascading or posy, in your palette.'],
  ['Bridesmaid bouquets', 'Smaller companions to the bridal bouquet.'],
  ['Boutonnieres & corsages', 'For the groom, groomsmen, parents and grandparents.'],
  ['Ceremony flowers', 'Arch and arbour pieces, aisle markers, altar arrangements.'],
  ['Reception', 'Centerpieces, sweetheart table, cake flowers and bar pieces.'],
  ['Flower crowns & petals', 'For flower girls, and petals for the send-off.'],
]

export default function Weddings() {
  usePageMeta('Weddings', 'Wedding flowers by quote: consults, a menu of pieces and our gallery.')
  return (
    <>
      <PageHero title="Weddings" subtitle="Flowers for the whole day, designed with you." />
      <Section className="max-w-4xl">
        <Tabs defaultValue="consult">
          <TabsList className="w-full flex-wrap sm:w-auto">
            <TabsTrigger value="consult">Wedding Consult</TabsTrigger>
            <TabsTrigger value="menu">Menu</TabsTrigger>
            <TabsTrigger value="gallery">Gallery</TabsTrigger>
          </TabsList>
          <TabsContent value="consult" className="space-y-4 leading-relaxed text-ink-700">
            <h2 className="font-display text-3xl font-semibold text-ink-900">
              Start With a Consult
            </h2>
            <p>
              Every wedding is different, so we begin with a free consultation in the shop. Bring
              your ideas, your colours and your venue; we bring what is in season and what will hold
              up beautifully on the day.
            </p>
            <p>
              Pricing varies with the flowers and the number of pieces, so wedding flowers are by
              quote. Call or e-mail us to book a time.
            </p>
            <p className="flex flex-wrap gap-x-6 gap-y-2 font-semibold">
              <a
                href={site.phoneHref}
                className="inline-flex items-center gap-2 hover:text-rose-700"
              >
                <Phone className="size-4" aria-hidden="true" />
                Call {site.phone}
              </a>
              <a
                href={`mailto:${site.email}?subject=Wedding%20flowers`}
                className="inline-flex items-center gap-2 hover:text-rose-700"
              >
                <Mail className="size-4" aria-hidden="true" />
                E-mail {site.email}
              </a>
            </p>
            <p>
              <Link
                to="/wedding-consult"
                className="font-semibold text-rose-700 underline-offset-4 hover:underline"
              >
                How a consult works
              </Link>
            </p>
          </TabsContent>
          <TabsContent value="menu">
            <h2 className="font-display text-3xl font-semibold">Wedding Menu</h2>
            <ul className="mt-4 divide-y rounded-lg border bg-card">
              {menu.map(([t, d]) => (
                <li key={t} className="p-4">
                  <p className="font-semibold">{t}</p>
                  <p className="text-sm text-muted-foreground">{d}</p>
                </li>
              ))}
            </ul>
            <p className="mt-4 text-sm text-muted-foreground">Pricing varies and is by quote.</p>
          </TabsContent>
          <TabsContent value="gallery">
            <div className="rounded-lg border border-dashed bg-card p-12 text-center">
              <h2 className="font-display text-3xl font-semibold">Gallery Coming Soon</h2>
              <p className="mt-2 text-muted-foreground">
                Photos of our recent weddings will be here soon.
              </p>
            </div>
          </TabsContent>
        </Tabs>
      </Section>
    </>
  )
}
