import * as T from '@radix-ui/react-tabs'
import { cn } from '@/lib/cn'

export const Tabs = T.Root
export const TabsContent = T.Content

export function TabsList({ children, label }: { children: React.ReactNode; label: string }) {
  return (
    <T.List aria-label={label} className="flex flex-wrap gap-1 border-b border-border">
      {children}
    </T.List>
  )
}

export function TabsTrigger({ value, children }: { value: string; children: React.ReactNode }) {
  return (
    <T.Trigger
      value={value}
      className={cn(
        '-mb-px border-b-2 border-transparent px-3 py-2 text-sm font-medium text-muted-foreground cursor-pointer',
        'data-[state=active]:border-primary data-[state=active]:text-foreground hover:text-foreground',
      )}
    >
      {children}
    </T.Trigger>
  )
}
