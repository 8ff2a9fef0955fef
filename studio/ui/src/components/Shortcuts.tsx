/** The keyboard shortcuts everywhere in Studio (`?` lists them, `g` then a letter opens a page,
 * Shift+Alt+T switches the theme) and the dialog that lists them with the SQL editor's own. */
import { useEffect, useRef, useState } from 'react'
import { useNavigate } from 'react-router-dom'
import { Keyboard } from 'lucide-react'
import { Dialog } from '@/components/ui/dialog'
import {
  comboLabel,
  GO_TO,
  goStep,
  isMac,
  isTyping,
  matches,
  SQL_KEYS,
  TOGGLE_THEME,
} from '@/lib/shortcuts'

const mac = typeof navigator !== 'undefined' && isMac(navigator.platform)

function Keys({ children }: { children: string }) {
  return (
    <kbd className="rounded border border-border bg-muted px-1.5 py-0.5 font-mono text-xs">
      {children}
    </kbd>
  )
}

function Row({ keys, what }: { keys: React.ReactNode; what: string }) {
  return (
    <tr>
      <td className="whitespace-nowrap border-b border-border py-1.5 pr-4">{keys}</td>
      <td className="border-b border-border py-1.5">{what}</td>
    </tr>
  )
}

function Group({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <table className="mb-4 w-full border-collapse text-left text-sm">
      <caption className="pb-1 text-left text-xs font-semibold uppercase tracking-wide text-muted-foreground">
        {title}
      </caption>
      <thead className="sr-only">
        <tr>
          <th scope="col">Keys</th>
          <th scope="col">Action</th>
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  )
}

/** Listens for the shortcuts that work on every page; renders the list when `?` is pressed. */
export function Shortcuts({ onToggleTheme }: { onToggleTheme: () => void }) {
  const [open, setOpen] = useState(false)
  const navigate = useNavigate()
  const pendingG = useRef<number | null>(null)
  const toggle = useRef(onToggleTheme)
  toggle.current = onToggleTheme

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return
      if (matches(e, TOGGLE_THEME, mac)) {
        e.preventDefault()
        toggle.current()
        return
      }
      if (isTyping(e.target)) return
      if (e.key === '?' && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault()
        setOpen(true)
        return
      }
      const step = goStep(pendingG.current !== null, e)
      if (pendingG.current !== null) {
        window.clearTimeout(pendingG.current)
        pendingG.current = null
      }
      if (step === 'wait') {
        pendingG.current = window.setTimeout(() => {
          pendingG.current = null
        }, 1500)
      } else if (step) {
        e.preventDefault()
        navigate(step.to)
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [navigate])

  return (
    <>
      <button
        type="button"
        className="mx-2 mt-auto flex items-center gap-2 rounded-md px-2.5 py-2 text-left hover:bg-slate-800"
        onClick={() => setOpen(true)}
      >
        <Keyboard className="size-4" aria-hidden />
        Shortcuts <span className="ml-auto text-xs text-slate-400">?</span>
      </button>
      <Dialog
        open={open}
        onOpenChange={setOpen}
        title="Keyboard shortcuts"
        description="Single keys work when no field or editor has the focus."
      >
        <Group title="Anywhere">
          <Row keys={<Keys>?</Keys>} what="Show these shortcuts" />
          <Row keys={<Keys>{comboLabel(TOGGLE_THEME, mac)}</Keys>} what="Switch light/dark theme" />
          {GO_TO.map((g) => (
            <Row
              key={g.letter}
              keys={
                <>
                  <Keys>G</Keys> then <Keys>{g.letter.toUpperCase()}</Keys>
                </>
              }
              what={`Go to ${g.label}`}
            />
          ))}
        </Group>
        <Group title="SQL editor">
          <Row
            keys={<Keys>{comboLabel(SQL_KEYS.run, mac)}</Keys>}
            what="Run the query (the selection only, when text is selected)"
          />
          <Row keys={<Keys>{comboLabel(SQL_KEYS.format, mac)}</Keys>} what="Format the SQL" />
          <Row keys={<Keys>{comboLabel(SQL_KEYS.newTab, mac)}</Keys>} what="New query tab" />
          <Row keys={<Keys>{comboLabel(SQL_KEYS.save, mac)}</Keys>} what="Save as snippet" />
          <Row keys={<Keys>Ctrl+Space</Keys>} what="Complete a name" />
        </Group>
      </Dialog>
    </>
  )
}
