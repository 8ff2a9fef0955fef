import { useEffect } from 'react'
import { site } from '@/config/site'

/** The `<meta>` of `selector` in the head (made when missing). */
function meta(attribute: 'name' | 'property', key: string): HTMLMetaElement {
  let m = document.querySelector<HTMLMetaElement>(`meta[${attribute}="${key}"]`)
  if (!m) {
    m = document.createElement('meta')
    m.setAttribute(attribute, key)
    document.head.appendChild(m)
  }
  return m
}

/** Sets the page's title and meta description, and what sharing it shows (Open Graph). */
export function usePageMeta(title: string, description: string) {
  useEffect(() => {
    const full = title
      ? `${title} | ${site.name}`
      : `${site.name} | Florist in ${site.address.city}, Utah`
    document.title = full
    meta('name', 'description').content = description
    meta('property', 'og:title').content = full
    meta('property', 'og:description').content = description
    const url = meta('property', 'og:url')
    url.content = new URL(
      window.location.pathname,
      url.content.startsWith('http') ? url.content : window.location.origin,
    ).href
  }, [title, description])
}
