import * as React from 'react'
import { useForm } from 'react-hook-form'
import { zodResolver } from '@hookform/resolvers/zod'
import { useQueryClient } from '@tanstack/react-query'
import { UserMinus, UserPlus } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { ConfirmDialog } from '@/components/ui/alert-dialog'
import { FieldError } from '@/components/ui/field-error'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { toast } from '@/components/ui/use-toast'
import { AdminTable, type Column } from '@/admin/AdminTable'
import { useFailureToast } from '@/admin/useFailureToast'
import { useAuth } from '@/features/auth/session'
import { describeError } from '@/lib/errors'
import { SaveFailure, useSave } from '@/admin/useSave'
import { grantAdmin, revokeAdmin, saveNotifyEmail, useAdmins, useNotifyEmail } from './api'
import { grantSchema, notifySchema, type GrantForm, type NotifyForm } from './schema'

type Admin = { user_id: string; email: string; since: string; last_sign_in_at: string }

const day = (iso: string | null) =>
  iso
    ? new Date(iso).toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric' })
    : 'Never'

function GrantAdmin({ onDone }: { onDone: () => void }) {
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<GrantForm>({
    resolver: zodResolver(grantSchema),
    defaultValues: { email: '' },
  })
  const save = useSave('Could not add the administrator')
  const onSubmit = async ({ email }: GrantForm) => {
    if (!(await save.run(() => grantAdmin(email)))) return
    toast({ title: 'Administrator added', description: `${email} can now use the admin panel.` })
    reset()
    onDone()
  }
  return (
    <form
      onSubmit={handleSubmit(onSubmit)}
      noValidate
      className="space-y-3 rounded-lg border bg-card p-6"
    >
      <h2 className="font-display text-2xl font-semibold">Add an administrator</h2>
      <p className="text-sm text-muted-foreground">
        They create an account on the sign-up page first; then enter its e-mail here.
      </p>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
        <div className="flex-1 space-y-2">
          <Label htmlFor="grant-email" className="sr-only">
            E-mail of the account
          </Label>
          <Input
            id="grant-email"
            type="email"
            placeholder="name@example.com"
            autoComplete="off"
            aria-invalid={!!errors.email}
            aria-describedby="grant-email-error"
            {...register('email')}
          />
          <FieldError id="grant-email-error" message={errors.email?.message} />
        </div>
        <Button type="submit" disabled={isSubmitting}>
          <UserPlus aria-hidden="true" /> {isSubmitting ? 'Adding…' : 'Make administrator'}
        </Button>
      </div>
      <SaveFailure
        message={save.failure}
        onRetry={() => void handleSubmit(onSubmit)()}
        busy={isSubmitting}
        what="The administrator was"
      />
    </form>
  )
}

function NotifyEmail() {
  const current = useNotifyEmail()
  const client = useQueryClient()
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting, isDirty },
  } = useForm<NotifyForm>({
    resolver: zodResolver(notifySchema),
    defaultValues: { notify_email: '' },
  })
  React.useEffect(() => {
    if (current.data !== undefined) reset({ notify_email: current.data })
  }, [current.data, reset])
  const save = useSave()
  const onSubmit = async ({ notify_email }: NotifyForm) => {
    if (!(await save.run(() => saveNotifyEmail(notify_email)))) return
    toast({
      title: notify_email
        ? `New requests are e-mailed to ${notify_email}`
        : 'New requests are no longer e-mailed',
    })
    void client.invalidateQueries({ queryKey: ['settings'] })
  }
  return (
    <form
      onSubmit={handleSubmit(onSubmit)}
      noValidate
      className="space-y-3 rounded-lg border bg-card p-6"
    >
      <h2 className="font-display text-2xl font-semibold">Request notifications</h2>
      <p className="text-sm text-muted-foreground">
        Each new bouquet request is e-mailed here. Leave it empty to only see them under Requests.
      </p>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
        <div className="flex-1 space-y-2">
          <Label htmlFor="notify-email" className="sr-only">
            E-mail for new requests
          </Label>
          <Input
            id="notify-email"
            type="email"
            placeholder="shop@example.com"
            aria-invalid={!!errors.notify_email}
            aria-describedby="notify-email-error"
            {...register('notify_email')}
          />
          <FieldError id="notify-email-error" message={errors.notify_email?.message} />
        </div>
        <Button type="submit" variant="outline" disabled={isSubmitting || !isDirty}>
          Save
        </Button>
      </div>
      <SaveFailure
        message={save.failure}
        onRetry={() => void handleSubmit(onSubmit)()}
        busy={isSubmitting}
      />
    </form>
  )
}

/** Who may use the admin panel: list, add by e-mail, revoke (never the last one). */
export default function StaffPage() {
  const admins = useAdmins()
  const client = useQueryClient()
  const { session } = useAuth()
  useFailureToast(admins.error, 'Failed to fetch staff')
  const refresh = () => void client.invalidateQueries({ queryKey: ['staff'] })
  const list = admins.error ? [] : admins.data
  const onlyOne = (list?.length ?? 0) <= 1

  const revoke = async (a: Admin) => {
    const { error } = await revokeAdmin(a.email)
    if (error) {
      toast({
        variant: 'destructive',
        title: 'Could not revoke',
        description: describeError(error),
      })
      return
    }
    toast({
      title: 'Administrator removed',
      description: `${a.email} can no longer use the admin panel.`,
    })
    refresh()
    // Revoking oneself ends one's own access: the guard shows Access Denied.
    if (a.user_id === session?.user.id) void client.invalidateQueries({ queryKey: ['is-admin'] })
  }

  const columns: Column<Admin>[] = [
    {
      heading: 'E-mail',
      primary: true,
      cell: (a) => (
        <span className="font-semibold">
          {a.email} {a.user_id === session?.user.id && <Badge className="ml-1">You</Badge>}
        </span>
      ),
    },
    { heading: 'Administrator since', cell: (a) => day(a.since) },
    { heading: 'Last sign-in', cell: (a) => day(a.last_sign_in_at) },
  ]
  return (
    <div className="max-w-4xl space-y-6">
      <div>
        <h1 className="font-display text-4xl font-bold">Staff</h1>
        <p className="mt-1 text-muted-foreground">
          The shop's administrators: they manage the catalogue and answer requests.
        </p>
      </div>
      <AdminTable
        rows={list}
        columns={columns}
        rowKey={(a) => a.user_id}
        testId="staff-row"
        loadingText="Loading staff..."
        emptyText="No administrators"
        actions={(a) => (
          <div className="flex justify-end">
            {onlyOne ? (
              <span className="text-xs text-muted-foreground">The only administrator</span>
            ) : (
              <ConfirmDialog
                title={
                  a.user_id === session?.user.id
                    ? 'Remove your own administrator role?'
                    : `Remove ${a.email}?`
                }
                description={
                  a.user_id === session?.user.id
                    ? 'You will no longer be able to use the admin panel.'
                    : `${a.email} will no longer be able to use the admin panel. Their account stays.`
                }
                confirmLabel="Revoke"
                onConfirm={() => revoke(a)}
                trigger={
                  <Button variant="outline" size="sm" aria-label={`Revoke ${a.email}`}>
                    <UserMinus aria-hidden="true" /> Revoke
                  </Button>
                }
              />
            )}
          </div>
        )}
      />
      <GrantAdmin onDone={refresh} />
      <NotifyEmail />
    </div>
  )
}
