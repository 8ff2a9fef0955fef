import { Link, Navigate, useNavigate } from 'react-router-dom'
import { ArrowLeft } from 'lucide-react'
import { useForm } from 'react-hook-form'
import { zodResolver } from '@hookform/resolvers/zod'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader } from '@/components/ui/card'
import { FieldError } from '@/components/ui/field-error'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { toast } from '@/components/ui/use-toast'
import { LogoMark } from '@/site/layout/Logo'
import { authSchema, type AuthForm } from './schema'
import { AuthProvider, isAdmin, useAuth } from './session'
import { supabase } from '@/lib/supabase'
import { usePageMeta } from '@/lib/usePageMeta'

/** The toast for a failed sign-up (SPEC.md §8). */
export function signUpErrorMessage(message: string | undefined): string {
  if (message?.includes('already registered'))
    return 'This email is already registered. Please sign in instead.'
  return message || 'An error occurred during sign up'
}

function CredentialsForm({ mode }: { mode: 'signin' | 'signup' }) {
  const navigate = useNavigate()
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<AuthForm>({
    resolver: zodResolver(authSchema),
    defaultValues: { email: '', password: '' },
  })
  const id = (f: string) => `${mode}-${f}`

  const onValid = async ({ email, password }: AuthForm) => {
    try {
      if (mode === 'signin') {
        const { data, error } = await supabase.auth.signInWithPassword({ email, password })
        if (error) {
          toast({
            variant: 'destructive',
            title: 'Error',
            description: error.message || 'An error occurred during sign in',
          })
          return
        }
        // An account without the admin role is told so at once (the admin area says it too);
        // a check that cannot be made does not hold the sign-in up.
        const staff = await isAdmin(data.user.id).catch(() => true)
        toast(
          staff
            ? { title: 'Signed in successfully!' }
            : {
                title: 'Signed in',
                description:
                  'This account is not a shop administrator. The shop’s owner can add it under Staff.',
              },
        )
        navigate('/admin')
      } else {
        const { data, error } = await supabase.auth.signUp({
          email,
          password,
          options: { emailRedirectTo: `${window.location.origin}/admin` },
        })
        if (error) {
          toast({
            variant: 'destructive',
            title: 'Error',
            description: signUpErrorMessage(error.message),
          })
          return
        }
        // With e-mail autoconfirm the sign-up also signed in; the flow asks to sign in, so
        // forget that session here (on this device only).
        if (data.session) await supabase.auth.signOut({ scope: 'local' })
        toast({ title: 'Account created successfully! Please sign in.' })
        reset()
      }
    } catch {
      toast({
        variant: 'destructive',
        title: 'Error',
        description:
          mode === 'signin'
            ? 'An error occurred during sign in'
            : 'An error occurred during sign up',
      })
    }
  }
  // Validation errors are shown under the fields, and the first one as a toast.
  const onInvalid = (errs: typeof errors) => {
    const first = errs.email?.message ?? errs.password?.message
    if (first) toast({ variant: 'destructive', title: 'Error', description: first })
  }

  return (
    <form onSubmit={handleSubmit(onValid, onInvalid)} noValidate className="space-y-4">
      <div className="space-y-2">
        <Label htmlFor={id('email')}>Email</Label>
        <Input
          id={id('email')}
          type="email"
          autoComplete="email"
          aria-invalid={!!errors.email}
          aria-describedby={id('email-error')}
          {...register('email')}
        />
        <FieldError id={id('email-error')} message={errors.email?.message} />
      </div>
      <div className="space-y-2">
        <Label htmlFor={id('password')}>Password</Label>
        <Input
          id={id('password')}
          type="password"
          autoComplete={mode === 'signin' ? 'current-password' : 'new-password'}
          aria-invalid={!!errors.password}
          aria-describedby={id('password-error')}
          {...register('password')}
        />
        <FieldError id={id('password-error')} message={errors.password?.message} />
      </div>
      <Button type="submit" className="w-full" disabled={isSubmitting}>
        {isSubmitting ? 'Please wait…' : mode === 'signin' ? 'Sign In' : 'Sign Up'}
      </Button>
    </form>
  )
}

export default function AuthPage() {
  return (
    <AuthProvider>
      <AdminAccess />
    </AuthProvider>
  )
}

function AdminAccess() {
  usePageMeta('Admin Access', 'Sign in to manage the shop.')
  const { session, loading } = useAuth()
  if (!loading && session) return <Navigate to="/admin" replace />
  return (
    <main className="flex min-h-screen flex-col items-center justify-center gap-4 bg-gradient-to-br from-rose-100 via-cream-100 to-sage-100 px-4 py-12">
      <Card className="w-full max-w-md">
        <CardHeader className="items-center text-center">
          <LogoMark />
          <h1 className="font-display text-3xl font-semibold leading-tight">Admin Access</h1>
          <CardDescription>Sign in to manage products, categories and imports.</CardDescription>
        </CardHeader>
        <CardContent>
          <Tabs defaultValue="signin">
            <TabsList className="grid w-full grid-cols-2">
              <TabsTrigger value="signin">Sign In</TabsTrigger>
              <TabsTrigger value="signup">Sign Up</TabsTrigger>
            </TabsList>
            <TabsContent value="signin">
              <CredentialsForm mode="signin" />
            </TabsContent>
            <TabsContent value="signup">
              <CredentialsForm mode="signup" />
            </TabsContent>
          </Tabs>
        </CardContent>
      </Card>
      <Link
        to="/"
        className="inline-flex items-center gap-2 rounded-md px-3 py-2 text-sm font-semibold text-ink-700 hover:bg-rose-100 hover:text-rose-700"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Back to the shop
      </Link>
    </main>
  )
}
