import * as React from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { FileUp } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Badge } from '@/components/ui/badge'
import { toast } from '@/components/ui/use-toast'
import { applyImport, MAX_IMPORT_ROWS } from './api'
import {
  importSummary,
  missingColumnsMessage,
  parseImportCsv,
  statusLabel,
  type ImportResult,
} from './csv'

export default function ImportPage() {
  const [file, setFile] = React.useState<File | null>(null)
  const client = useQueryClient()
  const [phase, setPhase] = React.useState<'idle' | 'importing' | 'done'>('idle')
  const [results, setResults] = React.useState<ImportResult[]>([])
  const [skipped, setSkipped] = React.useState(0)

  const run = async () => {
    if (!file) {
      toast({ variant: 'destructive', title: 'Please select a CSV file' })
      return
    }
    try {
      const parsed = parseImportCsv(await file.text())
      if (parsed.missingColumns.length > 0) {
        toast({
          variant: 'destructive',
          title: 'Error',
          description: missingColumnsMessage(parsed.missingColumns),
        })
        return
      }
      if (parsed.rows.length > MAX_IMPORT_ROWS) {
        toast({
          variant: 'destructive',
          title: 'Error',
          description: `The file has ${parsed.rows.length} rows; an import holds at most ${MAX_IMPORT_ROWS}. Split it into smaller files.`,
        })
        return
      }
      setPhase('importing')
      setResults([])
      setSkipped(parsed.skipped)
      const out = await applyImport(parsed.rows)
      void client.invalidateQueries({ queryKey: ['products'] })
      setResults(out)
      setPhase('done')
      const [title, ...rest] = importSummary(out)
      const failed = out.some((r) => r.status === 'error')
      toast({
        variant: failed ? 'destructive' : 'default',
        title: title ?? 'Nothing to import',
        description:
          [...rest, parsed.skipped ? `${parsed.skipped} row(s) skipped` : '']
            .filter(Boolean)
            .join(' · ') || undefined,
      })
    } catch (e) {
      setPhase('idle')
      toast({
        variant: 'destructive',
        title: 'Failed to import CSV',
        description: e instanceof Error ? e.message : undefined,
      })
    }
  }

  return (
    <div className="max-w-4xl space-y-6">
      <h1 className="font-display text-4xl font-bold">Import Products</h1>
      <div className="space-y-4 rounded-lg border bg-card p-6">
        <p className="text-sm text-muted-foreground">
          Upload the store's product export (CSV). The header must include <code>product_sku</code>{' '}
          and <code>product_internal_id</code>; <code>product_name</code> is optional. Each row's
          store id is saved on the product with that SKU.
        </p>
        <div className="flex flex-wrap items-center gap-3">
          <label
            htmlFor="csv-file"
            className="inline-flex cursor-pointer items-center gap-2 rounded-md border border-input px-3 py-2 text-sm font-semibold hover:bg-accent"
          >
            <FileUp className="size-4" aria-hidden="true" /> Choose CSV file
          </label>
          <input
            id="csv-file"
            type="file"
            accept=".csv,text/csv"
            className="sr-only"
            aria-label="CSV file"
            onChange={(e) => setFile(e.target.files?.[0] ?? null)}
          />
          <span className="text-sm text-muted-foreground">
            {file ? file.name : 'No file chosen'}
          </span>
          <Button onClick={run} disabled={phase === 'importing'}>
            {phase === 'importing' ? 'Importing…' : 'Import'}
          </Button>
        </div>
        {phase === 'importing' && (
          <p role="status" className="text-sm text-muted-foreground">
            Importing {file?.name}: every row is saved together, or none.
          </p>
        )}
      </div>
      {phase === 'done' && (
        <section aria-label="Import results" className="space-y-3">
          <p className="text-sm font-semibold" data-testid="import-summary">
            {results.filter((r) => r.status === 'success').length} updated ·{' '}
            {results.filter((r) => r.status === 'not_found').length} not found ·{' '}
            {results.filter((r) => r.status === 'error').length} failed · {skipped} skipped
          </p>
          <ul className="divide-y rounded-lg border bg-card">
            {results.map((r, i) => (
              <li
                // biome-ignore lint/suspicious/noArrayIndexKey: a file may repeat a SKU; the row's place tells them apart
                key={`${r.sku}-${i}`}
                className="flex flex-wrap items-center gap-3 p-3 text-sm"
                data-testid="import-row"
              >
                <Badge
                  tone={
                    r.status === 'success' ? 'good' : r.status === 'error' ? 'muted' : 'attention'
                  }
                >
                  {statusLabel[r.status]}
                </Badge>
                <span className="font-mono">{r.sku}</span>
                <span className="font-semibold">{r.name}</span>
                <span className="text-muted-foreground">{r.message}</span>
                <span className="ml-auto text-xs text-muted-foreground">
                  id {r.productInternalId}
                </span>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  )
}
