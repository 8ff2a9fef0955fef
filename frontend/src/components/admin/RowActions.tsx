import { Link } from 'react-router-dom'
import { Eye, EyeOff, Pencil, Trash2 } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { ConfirmDialog } from '@/components/ui/alert-dialog'

/** Hide/show, edit and delete (after confirmation) for one row of an admin list. */
export function RowActions({
  name,
  available,
  editTo,
  confirmTitle,
  confirmText,
  onToggle,
  onDelete,
}: {
  name: string
  available: boolean
  editTo: string
  confirmTitle: string
  confirmText: string
  onToggle: () => void
  onDelete: () => void
}) {
  return (
    <div className="flex justify-end gap-1">
      <Button variant="ghost" size="icon" onClick={onToggle} aria-label={`${available ? 'Hide' : 'Show'} ${name}`}>
        {available ? <EyeOff aria-hidden="true" /> : <Eye aria-hidden="true" />}
      </Button>
      <Button variant="ghost" size="icon" asChild>
        <Link to={editTo} aria-label={`Edit ${name}`}>
          <Pencil aria-hidden="true" />
        </Link>
      </Button>
      <ConfirmDialog
        title={confirmTitle}
        description={confirmText}
        onConfirm={onDelete}
        trigger={
          <Button variant="ghost" size="icon" aria-label={`Delete ${name}`}>
            <Trash2 className="text-destructive" aria-hidden="true" />
          </Button>
        }
      />
    </div>
  )
}
