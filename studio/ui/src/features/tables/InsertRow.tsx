import { useState } from 'react'
import { useMutation } from '@tanstack/react-query'
import { api } from '@/lib/api'
import { Button } from '@/components/ui/button'
import { Field, Input } from '@/components/ui/input'
import { Dialog } from '@/components/ui/dialog'
import { ErrorNote } from '@/components/ErrorNote'
import { tablePath, type TableInfo } from './types'
import { FkPicker, foreignKeyOf } from './FkPicker'

/** A new row: each writable column; an empty field takes the column's default. */
export function InsertRow({
  open,
  onOpenChange,
  info,
  onInserted,
}: {
  open: boolean
  onOpenChange: (o: boolean) => void
  info: TableInfo
  onInserted: () => void
}) {
  const [values, setValues] = useState<Record<string, string>>({})
  const [picking, setPicking] = useState<string | null>(null)
  const insert = useMutation({
    mutationFn: () =>
      api(`/rows/${tablePath(info.schema, info.name)}`, {
        method: 'POST',
        json: { values: Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '')) },
      }),
    onSuccess: () => {
      setValues({})
      onOpenChange(false)
      onInserted()
    },
  })
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={`Insert a row into ${info.name}`}
      description="Empty fields take the column's default (or NULL)."
    >
      <form
        className="flex flex-col gap-3"
        onSubmit={(e) => {
          e.preventDefault()
          insert.mutate()
        }}
      >
        {info.columns
          .filter((c) => !c.generated)
          .map((c) => {
            const fk = foreignKeyOf(info.relations, c.name)
            return (
              <div key={c.name} className="flex flex-col gap-1">
                <div className="flex items-end gap-2">
                  <Field
                    label={`${c.name} · ${c.data_type}${c.nullable ? '' : ' · required'}`}
                    className="flex-1"
                  >
                    <Input
                      value={values[c.name] ?? ''}
                      placeholder={c.default ? `default: ${c.default}` : c.nullable ? 'NULL' : ''}
                      onChange={(e) => setValues({ ...values, [c.name]: e.target.value })}
                      className="font-mono"
                    />
                  </Field>
                  {fk ? (
                    <Button
                      type="button"
                      variant="outline"
                      aria-expanded={picking === c.name}
                      onClick={() => setPicking(picking === c.name ? null : c.name)}
                    >
                      {`Pick ${fk.table} for ${c.name}`}
                    </Button>
                  ) : null}
                </div>
                {fk && picking === c.name ? (
                  <FkPicker
                    relation={fk}
                    onPick={(v) => {
                      setValues({ ...values, [c.name]: v })
                      setPicking(null)
                    }}
                  />
                ) : null}
              </div>
            )
          })}
        <ErrorNote error={insert.error} />
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" disabled={insert.isPending}>
            Insert
          </Button>
        </div>
      </form>
    </Dialog>
  )
}
