/** A day `offset` days after today in the shop's time zone (Utah), skipping the days the demo
 * shop is closed (December 25th, January 1st): a day a request may be for. */
export function shopDay(offset = 3) {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Denver' }).format(new Date())
  const d = new Date(`${today}T12:00:00Z`)
  d.setUTCDate(d.getUTCDate() + offset)
  while (['12-25', '01-01'].includes(d.toISOString().slice(5, 10))) d.setUTCDate(d.getUTCDate() + 1)
  return d.toISOString().slice(0, 10)
}
