// The shop's sitemap.xml and robots.txt, made from the catalogue as it is now: every public page,
// the occasion pages and each available product. The site's _redirects serves them at
// /sitemap.xml and /robots.txt. Addresses start with the shop's website address (its settings),
// else this project's URL.
const api = Deno.env.get('SUPABASE_URL')!
const anon = Deno.env.get('SUPABASE_ANON_KEY')!

const pages = [
  '/', '/flowers', '/build-bouquet', '/gifts-retail', '/weddings', '/wedding-consult', '/custom-designs', '/contact',
  '/our-shop', '/about-us', '/happy-hour', '/terms-conditions', '/policies',
  '/occasions/seasonal', '/occasions/best-sellers', '/occasions/everyday', '/occasions/plants',
  '/occasions/dance-flowers', '/occasions/sympathy', '/occasions/memorial', '/occasions/love-romance',
]

async function rest(path: string, init: RequestInit = {}) {
  const res = await fetch(`${api}/rest/v1/${path}`, {
    ...init,
    headers: { apikey: anon, authorization: `Bearer ${anon}`, 'content-type': 'application/json' },
  })
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
  return res.json()
}

async function base(): Promise<string> {
  const options = await rest('rpc/request_options', { method: 'POST', body: '{}' })
  return String(options.site_url ?? api).replace(/\/+$/, '')
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

async function sitemap(): Promise<string> {
  const [root, products] = await Promise.all([
    base(),
    rest('products?select=id,updated_at&is_available=eq.true&order=name') as Promise<{ id: string; updated_at: string }[]>,
  ])
  const url = (path: string, lastmod?: string) =>
    `  <url><loc>${escape(root + path)}</loc>${lastmod ? `<lastmod>${lastmod.slice(0, 10)}</lastmod>` : ''}</url>`
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...pages.map((p) => url(p)),
    ...products.map((p) => url(`/product/${p.id}`, p.updated_at)),
    '</urlset>',
    '',
  ].join('\n')
}

async function robots(): Promise<string> {
  return ['User-agent: *', 'Disallow: /admin', 'Disallow: /auth', 'Disallow: /build-bouquet/sent/', '', `Sitemap: ${await base()}/sitemap.xml`, ''].join('\n')
}

Deno.serve(async (req) => {
  const path = new URL(req.url).pathname
  try {
    if (path.endsWith('/sitemap.xml')) {
      return new Response(await sitemap(), { headers: { 'content-type': 'application/xml; charset=utf-8', 'cache-control': 'public, max-age=3600' } })
    }
    if (path.endsWith('/robots.txt')) {
      return new Response(await robots(), { headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'public, max-age=3600' } })
    }
    return new Response('Not found', { status: 404 })
  } catch (e) {
    console.error('site-meta:', e)
    return new Response('The sitemap cannot be made right now.', { status: 503, headers: { 'retry-after': '60' } })
  }
})
