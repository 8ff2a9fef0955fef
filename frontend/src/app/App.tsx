import { Suspense } from 'react'
import { BrowserRouter, useRoutes, type RouteObject } from 'react-router-dom'
import { SiteLayout } from '@/site/layout/SiteLayout'
import Home from '@/site/pages/Home'
import NotFound from '@/site/pages/NotFound'
import { LazyToaster } from './LazyToaster'
import { lazyRetry } from './lazyRetry'
import { withQueries } from './withQueries'
import { RouteErrorBoundary } from './RouteErrorBoundary'

// Everything but the home page loads on demand; the admin area never ships with the public pages.
const Contact = lazyRetry(() => import('@/site/pages/Contact'))
const OurShop = lazyRetry(() => import('@/site/pages/OurShop'))
const AboutUs = lazyRetry(() => import('@/site/pages/AboutUs'))
const Weddings = lazyRetry(() => import('@/site/pages/Weddings'))
const TermsConditions = lazyRetry(() =>
  import('@/site/pages/Legal').then((m) => ({ default: m.TermsConditions })),
)
const Policies = lazyRetry(() =>
  import('@/site/pages/Legal').then((m) => ({ default: m.Policies })),
)
const HappyHour = lazyRetry(() =>
  import('@/site/pages/Services').then((m) => ({ default: m.HappyHour })),
)
const GiftsRetail = lazyRetry(() =>
  import('@/site/pages/Services').then((m) => ({ default: m.GiftsRetail })),
)
const WeddingConsult = lazyRetry(() =>
  import('@/site/pages/Services').then((m) => ({ default: m.WeddingConsult })),
)
const CustomDesigns = lazyRetry(() =>
  import('@/site/pages/Services').then((m) => ({ default: m.CustomDesigns })),
)
const OccasionPage = withQueries(() => import('@/features/catalogue/OccasionPage'))
const ProductDetailPage = withQueries(() => import('@/features/catalogue/ProductDetailPage'))
const ShopAllPage = withQueries(() => import('@/features/catalogue/ShopAllPage'))
const BuildBouquetPage = lazyRetry(() => import('@/features/bouquet/BuildBouquetPage'))
const ConfirmationPage = lazyRetry(() => import('@/features/bouquet/ConfirmationPage'))
const AuthPage = lazyRetry(() => import('@/features/auth/AuthPage'))
// The admin pages render inside AdminLayout's outlet, under its query cache.
const AdminLayout = withQueries(() => import('@/admin/AdminLayout'))
const Dashboard = lazyRetry(() => import('@/admin/Dashboard'))
const ProductsPage = lazyRetry(() => import('@/features/products/ProductsPage'))
const ProductFormPage = lazyRetry(() => import('@/features/products/ProductFormPage'))
const CategoriesPage = lazyRetry(() => import('@/features/categories/CategoriesPage'))
const CategoryFormPage = lazyRetry(() => import('@/features/categories/CategoryFormPage'))
const ImportPage = lazyRetry(() => import('@/features/import/ImportPage'))
const RequestsPage = lazyRetry(() => import('@/features/requests/RequestsPage'))
const RequestDetailPage = lazyRetry(() => import('@/features/requests/RequestDetailPage'))
const StaffPage = lazyRetry(() => import('@/features/staff/StaffPage'))
const SettingsPage = lazyRetry(() => import('@/features/settings/SettingsPage'))

const adminFallback = (
  <p className="p-8 text-muted-foreground" role="status">
    Loading…
  </p>
)

export const routes: RouteObject[] = [
  {
    element: <SiteLayout />,
    children: [
      { path: '/', element: <Home /> },
      { path: '/gifts-retail', element: <GiftsRetail /> },
      { path: '/weddings', element: <Weddings /> },
      { path: '/build-bouquet', element: <BuildBouquetPage /> },
      { path: '/build-bouquet/sent/:reference', element: <ConfirmationPage /> },
      { path: '/contact', element: <Contact /> },
      { path: '/our-shop', element: <OurShop /> },
      { path: '/about-us', element: <AboutUs /> },
      { path: '/happy-hour', element: <HappyHour /> },
      { path: '/terms-conditions', element: <TermsConditions /> },
      { path: '/policies', element: <Policies /> },
      { path: '/wedding-consult', element: <WeddingConsult /> },
      { path: '/custom-designs', element: <CustomDesigns /> },
      { path: '/occasions/:slug', element: <OccasionPage /> },
      { path: '/product/:id', element: <ProductDetailPage /> },
      { path: '/flowers', element: <ShopAllPage /> },
      { path: '*', element: <NotFound /> },
    ],
  },
  {
    path: '/auth',
    element: (
      <Suspense fallback={adminFallback}>
        <AuthPage />
      </Suspense>
    ),
  },
  {
    path: '/admin',
    element: (
      <Suspense fallback={adminFallback}>
        <AdminLayout />
      </Suspense>
    ),
    children: [
      { index: true, element: <Dashboard /> },
      { path: 'products', element: <ProductsPage /> },
      { path: 'products/:id', element: <ProductFormPage /> },
      { path: 'categories', element: <CategoriesPage /> },
      { path: 'categories/:id', element: <CategoryFormPage /> },
      { path: 'import', element: <ImportPage /> },
      { path: 'requests', element: <RequestsPage /> },
      { path: 'requests/:id', element: <RequestDetailPage /> },
      { path: 'staff', element: <StaffPage /> },
      { path: 'settings', element: <SettingsPage /> },
    ],
  },
]

// Declarative routing: the data router's loaders and actions are unused here, and leaving them
// out keeps 14 KB of script off the home page.
function Routes() {
  return useRoutes(routes)
}

export default function App() {
  return (
    <>
      <BrowserRouter>
        <RouteErrorBoundary>
          <Routes />
        </RouteErrorBoundary>
      </BrowserRouter>
      <LazyToaster />
    </>
  )
}
