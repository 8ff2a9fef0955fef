import { NavLink } from 'react-router-dom'
import { cn } from '@/lib/cn'

export function AuthNav() {
  const link = ({ isActive }: { isActive: boolean }) =>
    cn(
      '-mb-px border-b-2 border-transparent px-3 py-2 text-muted-foreground hover:text-foreground',
      isActive && 'border-primary text-foreground',
    )
  return (
    <nav aria-label="Authentication" className="flex gap-1 border-b border-border bg-panel px-4">
      <NavLink to="/auth/users" className={link}>
        Users
      </NavLink>
      <NavLink to="/auth/messages" className={link}>
        Mail and text messages
      </NavLink>
    </nav>
  )
}
