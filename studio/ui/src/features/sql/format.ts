/** The SQL editor's Format action: sql-formatter's PostgreSQL dialect, keywords left as written.
 * Dollar-quoted bodies are strings to it and stay as they are; text it cannot read is left
 * unchanged, with the first line of its reason. */
import { format } from 'sql-formatter'

export type Formatted = { ok: true; text: string } | { ok: false; message: string }

export function formatSql(text: string): Formatted {
  if (text.trim() === '') return { ok: true, text }
  try {
    const out = format(text, {
      language: 'postgresql',
      keywordCase: 'preserve',
      tabWidth: 2,
      linesBetweenQueries: 1,
    })
    return { ok: true, text: text.endsWith('\n') ? `${out}\n` : out }
  } catch (e) {
    const first = (e instanceof Error ? e.message : String(e)).split('\n')[0].trim()
    return { ok: false, message: `Not formatted: ${first}` }
  }
}
