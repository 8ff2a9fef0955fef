import * as React from 'react'
import { ChevronLeft, ChevronRight } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { cn } from '@/lib/utils'

/** "YYYY-MM-DD" plus `n` days. */
function shift(day: string, n: number): string {
  const d = new Date(`${day}T12:00:00Z`)
  d.setUTCDate(d.getUTCDate() + n)
  return d.toISOString().slice(0, 10)
}

const monthStart = (day: string) => `${day.slice(0, 7)}-01`
const monthTitle = (first: string) =>
  new Date(`${first}T12:00:00Z`).toLocaleDateString('en-US', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  })
const dayName = (day: string) =>
  new Date(`${day}T12:00:00Z`).toLocaleDateString('en-US', {
    weekday: 'long',
    month: 'long',
    day: 'numeric',
    year: 'numeric',
    timeZone: 'UTC',
  })
const weekdayHeads = [
  ['Su', 'Sunday'],
  ['Mo', 'Monday'],
  ['Tu', 'Tuesday'],
  ['We', 'Wednesday'],
  ['Th', 'Thursday'],
  ['Fr', 'Friday'],
  ['Sa', 'Saturday'],
]

export interface CalendarProps {
  /** "YYYY-MM-DD", or empty. */
  selected?: string
  onSelect: (day: string) => void
  /** The first and last day that can be chosen. */
  min: string
  max: string
  /** Why a day in range cannot be chosen (shown greyed, said to screen readers), or null. */
  unavailable?: (day: string) => string | null
  /** Names the calendar, e.g. "Delivery date". */
  label: string
  id?: string
}

/**
 * A month of days to choose one from, weeks starting on Sunday (US). Days outside min..max or
 * unavailable are greyed out and cannot be chosen; the arrow keys move between days (Page Up and
 * Page Down between months), Enter or Space chooses.
 */
export function Calendar({ selected, onSelect, min, max, unavailable, label, id }: CalendarProps) {
  const [focus, setFocus] = React.useState(() =>
    selected && selected >= min && selected <= max ? selected : min,
  )
  const month = monthStart(focus)
  const grid = React.useRef<HTMLTableElement>(null)
  const moved = React.useRef(false)
  React.useEffect(() => {
    if (!moved.current) return
    moved.current = false
    grid.current?.querySelector<HTMLButtonElement>(`[data-day="${focus}"]`)?.focus()
  }, [focus])

  const go = (day: string) => {
    moved.current = true
    setFocus(day < min ? min : day > max ? max : day)
  }
  const reason = (day: string) =>
    day < min || day > max ? 'not available' : (unavailable?.(day) ?? null)
  const onKeyDown = (e: React.KeyboardEvent) => {
    const step: Record<string, number> = {
      ArrowLeft: -1,
      ArrowRight: 1,
      ArrowUp: -7,
      ArrowDown: 7,
      PageUp: -30,
      PageDown: 30,
    }
    if (e.key in step) {
      e.preventDefault()
      go(shift(focus, step[e.key]))
    }
  }
  // Six rows of seven days from the Sunday on or before the 1st.
  const first = shift(month, -new Date(`${month}T12:00:00Z`).getUTCDay())
  const weeks = Array.from({ length: 6 }, (_, w) =>
    Array.from({ length: 7 }, (_, d) => shift(first, w * 7 + d)),
  )
  const titleId = `${id ?? 'calendar'}-title`
  const prevMonth = shift(month, -1)
  const nextMonth = `${shift(month, 32).slice(0, 7)}-01`

  return (
    <div id={id} className="w-fit rounded-md border bg-card p-3" role="group" aria-label={label}>
      <div className="mb-2 flex items-center justify-between gap-2">
        <Button
          type="button"
          variant="ghost"
          size="icon"
          aria-label="Previous month"
          disabled={prevMonth < monthStart(min)}
          onClick={() => go(monthStart(prevMonth) < min ? min : monthStart(prevMonth))}
        >
          <ChevronLeft aria-hidden="true" />
        </Button>
        <p id={titleId} className="font-semibold" aria-live="polite">
          {monthTitle(month)}
        </p>
        <Button
          type="button"
          variant="ghost"
          size="icon"
          aria-label="Next month"
          disabled={nextMonth > max}
          onClick={() => go(nextMonth)}
        >
          <ChevronRight aria-hidden="true" />
        </Button>
      </div>
      <table
        ref={grid}
        className="border-collapse text-center text-sm"
        aria-labelledby={titleId}
        onKeyDown={onKeyDown}
      >
        <thead>
          <tr>
            {weekdayHeads.map(([short, long]) => (
              <th
                key={short}
                scope="col"
                abbr={long}
                className="size-10 font-normal text-muted-foreground"
              >
                {short}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {weeks.map((week) => (
            <tr key={week[0]}>
              {week.map((day) => {
                if (day.slice(0, 7) !== month.slice(0, 7))
                  return <td key={day} className="size-10" />
                const why = reason(day)
                const chosen = day === selected
                return (
                  <td key={day} className="p-0.5">
                    <button
                      type="button"
                      data-day={day}
                      tabIndex={day === focus ? 0 : -1}
                      aria-pressed={chosen}
                      aria-disabled={why ? true : undefined}
                      aria-label={why ? `${dayName(day)}, ${why}` : dayName(day)}
                      title={why ?? undefined}
                      onClick={() => {
                        setFocus(day)
                        if (!why) onSelect(day)
                      }}
                      className={cn(
                        'size-9 rounded-md outline-none focus-visible:ring-2 focus-visible:ring-ring',
                        why
                          ? 'cursor-not-allowed bg-muted/60 text-muted-foreground line-through'
                          : 'hover:bg-rose-100',
                        chosen &&
                          'bg-primary font-semibold text-primary-foreground hover:bg-primary',
                      )}
                    >
                      {Number(day.slice(8))}
                    </button>
                  </td>
                )
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
