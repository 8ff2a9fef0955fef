/** A day `offset` days after today in the shop's time zone (Utah). A day ahead skips the days the
 * demo shop is closed (Sundays, December 25th, January 1st): a day a request may be for. Today
 * and days past are returned as they are. */
export function shopDay(offset = 3) {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Denver' }).format(new Date())
  const d = new Date(`${today}T12:00:00Z`)
  d.setUTCDate(d.getUTCDate() + offset)
  while (
    offset > 0 &&
    (d.getUTCDay() === 0 || ['12-25', '01-01'].includes(d.toISOString().slice(5, 10)))
  )
    d.setUTCDate(d.getUTCDate() + 1)
  return d.toISOString().slice(0, 10)
}

/** The next Sunday after today in the shop's time zone (the demo shop is closed on Sundays). */
export function nextSunday() {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Denver' }).format(new Date())
  const d = new Date(`${today}T12:00:00Z`)
  do d.setUTCDate(d.getUTCDate() + 1)
  while (d.getUTCDay() !== 0)
  return d.toISOString().slice(0, 10)
}
