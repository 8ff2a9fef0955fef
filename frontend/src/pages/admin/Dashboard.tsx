import * as React from 'react'
import { Eye, EyeOff, FolderTree, Package } from 'lucide-react'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { toast } from '@/components/ui/use-toast'
import { dashboardCounts } from '@/lib/admin'
import { useLiveChanges } from '@/lib/live'

export default function Dashboard() {
  const [counts, setCounts] = React.useState<{ total: number; available: number; unavailable: number; categories: number } | null>(null)
  const load = React.useCallback(() => {
    dashboardCounts().then((c) => {
      if (c.error) toast({ variant: 'destructive', title: 'Failed to fetch products', description: c.error.message })
      setCounts(c)
    })
  }, [])
  React.useEffect(load, [load])
  useLiveChanges(['products', 'categories'], load)
  const cards = [
    { label: 'Total Products', value: counts?.total, icon: Package },
    { label: 'Available Products', value: counts?.available, icon: Eye },
    { label: 'Unavailable Products', value: counts?.unavailable, icon: EyeOff },
    { label: 'Categories', value: counts?.categories, icon: FolderTree },
  ]
  return (
    <div className="space-y-6">
      <h1 className="font-display text-4xl font-bold">Dashboard</h1>
      <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
        {cards.map((c) => (
          <Card key={c.label}>
            <CardHeader className="flex flex-row items-center justify-between pb-2">
              <CardTitle className="font-sans text-sm font-semibold text-muted-foreground">{c.label}</CardTitle>
              <c.icon className="size-5 text-rose-600" aria-hidden="true" />
            </CardHeader>
            <CardContent>
              <p className="text-3xl font-bold" data-testid={`count-${c.label.toLowerCase().replace(/ /g, '-')}`}>
                {c.value ?? '…'}
              </p>
            </CardContent>
          </Card>
        ))}
      </div>
    </div>
  )
}
