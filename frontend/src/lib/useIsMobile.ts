import * as React from 'react'

/** The admin area's phone layout: below the sidebar's breakpoint (SPEC.md §9, 768 px). */
export const MOBILE_BREAKPOINT = 768

/** Whether the viewport is narrower than the mobile breakpoint, following resizes. */
export function useIsMobile() {
  const query = `(max-width: ${MOBILE_BREAKPOINT - 1}px)`
  const [mobile, setMobile] = React.useState(
    () => typeof window !== 'undefined' && window.matchMedia(query).matches,
  )
  React.useEffect(() => {
    const mq = window.matchMedia(query)
    const on = () => setMobile(mq.matches)
    on()
    mq.addEventListener('change', on)
    return () => mq.removeEventListener('change', on)
  }, [query])
  return mobile
}
