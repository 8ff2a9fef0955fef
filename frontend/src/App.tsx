import { lazy, Suspense } from 'react'
import { createBrowserRouter, RouterProvider } from 'react-router-dom'
import { SiteLayout } from '@/components/site/SiteLayout'
import { Toaster } from '@/components/ui/toaster'
import ErrorScreen from '@/pages/site/ErrorScreen'
import Home from '@/pages/site/Home'
import NotFound from '@/pages/site/NotFound'

// Everything but the home page loads on demand; the admin area never ships with the public pages.
const Contact = lazy(() => import('@/pages/site/Contact'))
const OurShop = lazy(() => import('@/pages/site/OurShop'))
const AboutUs = lazy(() => import('@/pages/site/AboutUs'))
const Weddings = lazy(() => import('@/pages/site/Weddings'))
const Occasion = lazy(() => import('@/pages/site/Occasion'))
const ProductDetail = lazy(() => import('@/pages/site/ProductDetail'))
const BuildBouquet = lazy(() => import('@/pages/site/BuildBouquet'))
const TermsConditions = lazy(() => import('@/pages/site/Legal').then((m) => ({ default: m.TermsConditions })))
const Policies = lazy(() => import('@/pages/site/Legal').then((m) => ({ default: m.Policies })))
const HappyHour = lazy(() => import('@/pages/site/Services').then((m) => ({ default: m.HappyHour })))
const GiftsRetail = lazy(() => import('@/pages/site/Services').then((m) => ({ default: m.GiftsRetail })))
const WeddingConsult = lazy(() => import('@/pages/site/Services').then((m) => ({ default: m.WeddingConsult })))
const CustomDesigns = lazy(() => import('@/pages/site/Services').then((m) => ({ default: m.CustomDesigns })))
const AuthPage = lazy(() => import('@/pages/admin/AuthPage'))
const AdminLayout = lazy(() => import('@/pages/admin/AdminLayout'))
const Dashboard = lazy(() => import('@/pages/admin/Dashboard'))
const Products = lazy(() => import('@/pages/admin/Products'))
const ProductFormPage = lazy(() => import('@/pages/admin/ProductFormPage'))
const Categories = lazy(() => import('@/pages/admin/Categories'))
const CategoryFormPage = lazy(() => import('@/pages/admin/CategoryFormPage'))
const ImportProducts = lazy(() => import('@/pages/admin/ImportProducts'))

const adminFallback = <p className="p-8 text-muted-foreground" role="status">Loading…</p>

export const routes = [
  {
    element: <SiteLayout />,
    errorElement: <ErrorScreen />,
    children: [
      { path: '/', element: <Home /> },
      { path: '/gifts-retail', element: <GiftsRetail /> },
      { path: '/weddings', element: <Weddings /> },
      { path: '/build-bouquet', element: <BuildBouquet /> },
      { path: '/contact', element: <Contact /> },
      { path: '/our-shop', element: <OurShop /> },
      { path: '/about-us', element: <AboutUs /> },
      { path: '/happy-hour', element: <HappyHour /> },
      { path: '/terms-conditions', element: <TermsConditions /> },
      { path: '/policies', element: <Policies /> },
      { path: '/wedding-consult', element: <WeddingConsult /> },
      { path: '/custom-designs', element: <CustomDesigns /> },
      { path: '/occasions/:slug', element: <Occasion /> },
      { path: '/product/:id', element: <ProductDetail /> },
      { path: '*', element: <NotFound /> },
    ],
  },
  {
    path: '/auth',
    errorElement: <ErrorScreen />,
    element: (
      <Suspense fallback={adminFallback}>
        <AuthPage />
      </Suspense>
    ),
  },
  {
    path: '/admin',
    errorElement: <ErrorScreen />,
    element: (
      <Suspense fallback={adminFallback}>
        <AdminLayout />
      </Suspense>
    ),
    children: [
      { index: true, element: <Dashboard /> },
      { path: 'products', element: <Products /> },
      { path: 'products/:id', element: <ProductFormPage /> },
      { path: 'categories', element: <Categories /> },
      { path: 'categories/:id', element: <CategoryFormPage /> },
      { path: 'import', element: <ImportProducts /> },
    ],
  },
]

const router = createBrowserRouter(routes)

export default function App() {
  return (
    <>
      <RouterProvider router={router} />
      <Toaster />
    </>
  )
}
