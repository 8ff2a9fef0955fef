/**
 * Everything about the shop that is content rather than code: one typed place, so the shop can
 * change its phone number or team without touching components.
 */
export interface TeamMember {
  name: string
  role: string
  image: string
}

export interface SiteConfig {
  name: string
  shortName: string
  tagline: string
  email: string
  phone: string
  phoneHref: string
  secondaryPhone: string
  address: { street: string; city: string; region: string; postalCode: string; country: string }
  mapEmbedUrl: string
  mapLinkUrl: string
  storeId: string
  storeScriptUrl: string
  owner: { name: string; title: string; image: string }
  team: TeamMember[]
  namedArrangements: string[]
  copyrightYear: number
}

export const site: SiteConfig = {
  name: 'Bluebell & Sage Flowers',
  shortName: 'Bluebell & Sage',
  tagline: 'Floral Moments That Speak From The Heart',
  email: 'hello@bluebellandsage.com',
  phone: '(435) 555-0148',
  phoneHref: 'tel:+14355550148',
  secondaryPhone: '(435) 555-0192',
  address: {
    street: '86 N Main Street',
    city: 'Cedar City',
    region: 'UT',
    postalCode: '84720',
    country: 'USA',
  },
  mapEmbedUrl:
    'https://www.openstreetmap.org/export/embed.html?bbox=-113.0675%2C37.6710%2C-113.0555%2C37.6810&layer=mapnik&marker=37.6760%2C-113.0615',
  mapLinkUrl: 'https://www.openstreetmap.org/?mlat=37.6760&mlon=-113.0615#map=17/37.6760/-113.0615',
  storeId: '109876543',
  storeScriptUrl: 'https://app.ecwid.com/script.js',
  owner: { name: 'Marianne Holt', title: 'Owner & Lead Designer', image: '/demo/team-owner.svg' },
  team: [
    { name: 'Rosa Delgado', role: 'Florist', image: '/demo/team-1.svg' },
    { name: 'Jenna Whitaker', role: 'Florist', image: '/demo/team-2.svg' },
    { name: 'Camille Park', role: 'Florist', image: '/demo/team-3.svg' },
    { name: 'Lily Jensen', role: 'Florist', image: '/demo/team-4.svg' },
  ],
  namedArrangements: [
    'Abigail',
    'Beatrice',
    'Charlotte',
    'Daisy',
    'Eleanor',
    'Florence',
    'Grace',
    'Hazel',
    'Ivy',
  ],
  copyrightYear: 2025,
}

export const fullAddress = `${site.address.street}, ${site.address.city}, ${site.address.region} ${site.address.postalCode}`

/** The occasion links of the navigation, in the order SPEC.md §2 lists them. */
export const occasionLinks = [
  { to: '/occasions/seasonal', label: 'Seasonal' },
  { to: '/occasions/best-sellers', label: 'Best Sellers' },
  { to: '/occasions/everyday', label: 'Everyday / Any Occasion' },
  { to: '/occasions/love-romance', label: 'Love & Romance' },
  { to: '/occasions/plants', label: 'Plants' },
  { to: '/occasions/dance-flowers', label: 'Dance Flowers' },
  { to: '/occasions/sympathy', label: 'Sympathy / Memorial' },
] as const
