import { Link } from 'react-router-dom'
import { Eye, EyeOff, Pencil, Trash2 } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { ConfirmDialog } from '@/components/ui/alert-dialog'
import { Tooltip, TooltipContent, TooltipTrigger } from '@/components/ui/tooltip'
import { useIsMobile } from '@/lib/useIsMobile'

/** A button with a tooltip that says what it does (icons alone are ambiguous). */
export function Hint({ text, children }: { text: string; children: React.ReactNode }) {
  return (
    <Tooltip>
      <TooltipTrigger asChild>{children}</TooltipTrigger>
      <TooltipContent>{text}</TooltipContent>
    </Tooltip>
  )
}

/**
 * Hide/show, edit and delete (after confirmation) for one row of an admin list. Hide/show says
 * in words what it will do; on a phone every action is labelled.
 */
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
  const mobile = useIsMobile()
  const toggleText = available ? 'Hide' : 'Show'
  return (
    <div className={mobile ? 'grid grid-cols-3 gap-2' : 'flex justify-end gap-1'}>
      <Hint text={available ? 'Hide from the shop' : 'Show in the shop'}>
        <Button variant="outline" size="sm" onClick={onToggle} aria-label={`${toggleText} ${name}`}>
          {available ? <EyeOff aria-hidden="true" /> : <Eye aria-hidden="true" />}
          {toggleText}
        </Button>
      </Hint>
      <Hint text={`Edit ${name}`}>
        <Button variant={mobile ? 'outline' : 'ghost'} size={mobile ? 'sm' : 'icon'} asChild>
          <Link to={editTo} aria-label={`Edit ${name}`}>
            <Pencil aria-hidden="true" />
            {mobile && 'Edit'}
          </Link>
        </Button>
      </Hint>
      <ConfirmDialog
        title={confirmTitle}
        description={confirmText}
        onConfirm={onDelete}
        hint={`Delete ${name}`}
        trigger={
          <Button
            variant={mobile ? 'outline' : 'ghost'}
            size={mobile ? 'sm' : 'icon'}
            aria-label={`Delete ${name}`}
          >
            <Trash2 className="text-destructive" aria-hidden="true" />
            {mobile && 'Delete'}
          </Button>
        }
      />
    </div>
  )
}
