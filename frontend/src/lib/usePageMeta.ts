import { useEffect } from 'react'
import { site } from '@/config/site'

/** Sets the page's title and meta description. */
export function usePageMeta(title: string, description: string) {
  useEffect(() => {
    document.title = title ? `${title} | ${site.name}` : `${site.name} | Florist in ${site.address.city}, Utah`
    let meta = document.querySelector<HTMLMetaElement>('meta[name="description"]')
    if (!meta) {
      meta = document.createElement('meta')
      meta.name = 'description'
      document.head.appendChild(meta)
    }
    meta.content = description
  }, [title, description])
}
