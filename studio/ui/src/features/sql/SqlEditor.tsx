import { useEffect, useRef } from 'react'
import { basicSetup } from 'codemirror'
import { EditorView, keymap } from '@codemirror/view'
import { Compartment, EditorState, Prec } from '@codemirror/state'
import { PostgreSQL, sql, type SQLNamespace } from '@codemirror/lang-sql'
import { setDiagnostics } from '@codemirror/lint'
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language'
import { tags as t } from '@lezer/highlight'
import { functionSource, type CatalogFunction } from './completion'

/** What the page asks of the editor: the text to run (the selection, else all) and where it starts. */
export interface EditorApi {
  runnable: () => { text: string; from: number; selection: boolean }
  focus: () => void
}

export interface Marked {
  from: number
  to: number
  message: string
}

const theme = EditorView.theme({
  '&': {
    height: '100%',
    fontSize: '13px',
    backgroundColor: 'var(--color-panel)',
    color: 'var(--color-foreground)',
  },
  '.cm-scroller': { fontFamily: 'var(--font-mono)' },
  '.cm-gutters': {
    backgroundColor: 'var(--color-muted)',
    color: 'var(--color-muted-foreground)',
    borderRight: '1px solid var(--color-border)',
  },
  '.cm-activeLineGutter, .cm-activeLine': {
    backgroundColor: 'color-mix(in srgb, var(--color-primary) 8%, transparent)',
  },
  '&.cm-focused': { outline: '2px solid var(--color-ring)' },
  '.cm-content': { caretColor: 'var(--color-foreground)' },
  // Text outside a highlighted token is the theme's own colour, whatever a wider node is styled
  // and whatever colour the browser's editing wrote on the line (Chrome, inserting text, can
  // set the colour the text had then, a theme's token colour, as the line's inline style).
  '.cm-line': { color: 'var(--color-foreground) !important' },
  '.cm-tooltip': {
    backgroundColor: 'var(--color-panel)',
    color: 'var(--color-foreground)',
    border: '1px solid var(--color-border)',
  },
})

/** Highlighting in the theme's colours (styles.css gives each theme its own, all readable). */
const highlight = HighlightStyle.define([
  { tag: [t.keyword, t.operatorKeyword, t.modifier], color: 'var(--color-code-keyword)' },
  { tag: [t.string, t.special(t.string), t.regexp], color: 'var(--color-code-string)' },
  { tag: [t.number, t.bool, t.null, t.atom], color: 'var(--color-code-number)' },
  { tag: [t.typeName, t.standard(t.name), t.function(t.name)], color: 'var(--color-code-type)' },
  {
    tag: [t.comment, t.lineComment, t.blockComment],
    color: 'var(--color-muted-foreground)',
    fontStyle: 'italic',
  },
  { tag: t.invalid, color: 'var(--color-danger)' },
])

/** CodeMirror 6 with PostgreSQL's dialect, the catalog's completion and an error's mark. */
export function SqlEditor({
  value,
  onChange,
  onRun,
  onSelect,
  schema,
  functions,
  marked,
  api,
}: {
  value: string
  onChange: (v: string) => void
  onRun: () => void
  /** Whether some text is selected now (the run button then runs it). */
  onSelect: (selected: boolean) => void
  schema: SQLNamespace
  functions: CatalogFunction[]
  marked: Marked | null
  api: React.RefObject<EditorApi | null>
}) {
  const host = useRef<HTMLDivElement>(null)
  const view = useRef<EditorView | null>(null)
  const language = useRef(new Compartment())
  const handlers = useRef({ onChange, onRun, onSelect })
  handlers.current = { onChange, onRun, onSelect }

  // biome-ignore lint/correctness/useExhaustiveDependencies: the view is made once; value, schema and marks reach it through the effects below
  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          Prec.highest(
            keymap.of([
              {
                key: 'Mod-Enter',
                run: () => {
                  handlers.current.onRun()
                  return true
                },
              },
            ]),
          ),
          syntaxHighlighting(highlight),
          basicSetup,
          language.current.of([]),
          theme,
          EditorView.contentAttributes.of({ 'aria-label': 'SQL' }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) handlers.current.onChange(u.state.doc.toString())
            if (u.selectionSet) handlers.current.onSelect(!u.state.selection.main.empty)
          }),
        ],
      }),
    })
    view.current = v
    api.current = {
      runnable: () => {
        const s = v.state.selection.main
        if (s.empty) return { text: v.state.doc.toString(), from: 0, selection: false }
        return { text: v.state.sliceDoc(s.from, s.to), from: s.from, selection: true }
      },
      focus: () => v.focus(),
    }
    return () => {
      v.destroy()
      view.current = null
    }
    // The view is made once; value, schema and marks reach it below.
  }, [])

  useEffect(() => {
    const v = view.current
    if (v && v.state.doc.toString() !== value)
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } })
  }, [value])

  useEffect(() => {
    const lang = sql({
      dialect: PostgreSQL,
      schema,
      defaultSchema: 'public',
      upperCaseKeywords: false,
    })
    view.current?.dispatch({
      effects: language.current.reconfigure([
        lang,
        lang.language.data.of({ autocomplete: functionSource(functions) }),
      ]),
    })
  }, [schema, functions])

  useEffect(() => {
    const v = view.current
    if (!v) return
    const len = v.state.doc.length
    const diagnostics = marked
      ? [
          {
            from: Math.min(marked.from, len),
            to: Math.min(marked.to, len),
            severity: 'error' as const,
            message: marked.message,
          },
        ]
      : []
    v.dispatch(setDiagnostics(v.state, diagnostics))
  }, [marked])

  return (
    <div
      ref={host}
      className="h-64 overflow-hidden rounded-md border border-border"
      data-testid="sql-editor"
    />
  )
}
