import { Component, type ReactNode } from 'react'
import { useLocation } from 'react-router-dom'
import ErrorScreen from '@/site/pages/ErrorScreen'

interface State {
  failed: boolean
}

class Boundary extends Component<{ children: ReactNode }, State> {
  state: State = { failed: false }

  static getDerivedStateFromError(): State {
    return { failed: true }
  }

  componentDidCatch(error: unknown) {
    console.error('Page error:', error)
  }

  render() {
    return this.state.failed ? <ErrorScreen /> : this.props.children
  }
}

/**
 * A page that throws while rendering (or whose code cannot be loaded) shows the error screen
 * instead of a blank page; going to another address tries again.
 */
export function RouteErrorBoundary({ children }: { children: ReactNode }) {
  const { pathname } = useLocation()
  return <Boundary key={pathname}>{children}</Boundary>
}
