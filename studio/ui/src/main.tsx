import { StrictMode, lazy } from 'react'
import { createRoot } from 'react-dom/client'
import { BrowserRouter, Navigate, Route, Routes } from 'react-router-dom'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { SessionProvider } from '@/lib/session'
import { Layout } from '@/components/Layout'
import { applyTheme, loadTheme } from '@/lib/theme'
import './styles.css'

// The theme before the first paint (no flash of the other one).
applyTheme(loadTheme())

// Each page's code is fetched when it is first opened.
const TablesPage = lazy(() => import('@/features/tables/TablesPage'))
const SqlPage = lazy(() => import('@/features/sql/SqlPage'))
const DatabasePage = lazy(() => import('@/features/database/DatabasePage'))
const UsersPage = lazy(() => import('@/features/auth/UsersPage'))
const UserPage = lazy(() => import('@/features/auth/UserPage'))
const MessagesPage = lazy(() => import('@/features/auth/MessagesPage'))
const StoragePage = lazy(() => import('@/features/storage/StoragePage'))
const RealtimePage = lazy(() => import('@/features/realtime/RealtimePage'))
const FunctionsPage = lazy(() => import('@/features/functions/FunctionsPage'))
const LogsPage = lazy(() => import('@/features/logs/LogsPage'))
const ApiDocsPage = lazy(() => import('@/features/apidocs/ApiDocsPage'))
const SettingsPage = lazy(() => import('@/features/settings/SettingsPage'))

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
})

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <BrowserRouter>
          <Routes>
            <Route element={<Layout />}>
              <Route index element={<Navigate to="/tables" replace />} />
              <Route path="tables/:schema?/:table?" element={<TablesPage />} />
              <Route path="sql" element={<SqlPage />} />
              <Route path="database/:kind?" element={<DatabasePage />} />
              <Route path="auth" element={<Navigate to="/auth/users" replace />} />
              <Route path="auth/users" element={<UsersPage />} />
              <Route path="auth/users/:id" element={<UserPage />} />
              <Route path="auth/messages" element={<MessagesPage />} />
              <Route path="storage/:bucket?/*" element={<StoragePage />} />
              <Route path="realtime" element={<RealtimePage />} />
              <Route path="functions/:slug?" element={<FunctionsPage />} />
              <Route path="logs" element={<LogsPage />} />
              <Route path="api-docs" element={<ApiDocsPage />} />
              <Route path="settings" element={<SettingsPage />} />
              <Route path="*" element={<p className="p-6">This page does not exist.</p>} />
            </Route>
          </Routes>
        </BrowserRouter>
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
)
