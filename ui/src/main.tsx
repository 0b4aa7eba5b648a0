import { lazy, StrictMode, Suspense, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, createRoutesFromElements, Outlet, Route, RouterProvider } from 'react-router';
import { Toaster } from 'sonner';
import { useTranslation } from 'react-i18next';
import { applyTheme, useTheme } from './theme';
import 'sonner/dist/styles.css';
import './styles.css';
import { i18nReady } from './i18n';
import { queryClient } from './queries';
import { uiPath } from './uiPath';
import { SignInPage } from './auth/SignInPage';
import { ResetPage } from './auth/ResetPage';
import { RequireOperator, UnauthorizedRedirect } from './auth/RequireOperator';
import { DashboardPage } from './pages/DashboardPage';
import { Loading } from './components/Status';

// A list, a row's page, forms, live rooms, the reports and the account
// page load on first use: their moderation, history, pickers, switches, JSON editor and
// two-factor enrolment are not part of the first page load (which stays
// under 200 KB gzip).
const ResourceListPage = lazy(() => import('./pages/ResourceListPage').then((m) => ({ default: m.ResourceListPage })));
const ResourceShowPage = lazy(() => import('./pages/ResourceShowPage').then((m) => ({ default: m.ResourceShowPage })));
const ResourceFormPage = lazy(() => import('./pages/ResourceFormPage').then((m) => ({ default: m.ResourceFormPage })));
const RoomsPage = lazy(() => import('./pages/RoomsPage').then((m) => ({ default: m.RoomsPage })));
const RoomInspectorPage = lazy(() => import('./pages/RoomInspectorPage').then((m) => ({ default: m.RoomInspectorPage })));
const ReportsPage = lazy(() => import('./pages/ReportsPage').then((m) => ({ default: m.ReportsPage })));
const ReportsPlayerPage = lazy(() => import('./pages/ReportsPage').then((m) => ({ default: m.ReportsPlayerPage })));
const AccountPage = lazy(() => import('./pages/AccountPage').then((m) => ({ default: m.AccountPage })));
const later = (page: ReactNode) => <Suspense fallback={<Loading />}>{page}</Suspense>;
const form = (mode: 'create' | 'edit') => later(<ResourceFormPage mode={mode} />);

// A data router, so that a form with unsaved changes can hold navigation
// (useBlocker) and ask first.
const router = createBrowserRouter(
  createRoutesFromElements(
    <Route
      element={
        <>
          <UnauthorizedRedirect />
          <Outlet />
        </>
      }
    >
      <Route path="/login" element={<SignInPage />} />
      <Route path="/setup" element={<SignInPage />} />
      <Route path="/reset" element={<ResetPage />} />
      <Route element={<RequireOperator />}>
        <Route index element={<DashboardPage />} />
        <Route path="account" element={later(<AccountPage />)} />
        <Route path="rooms" element={later(<RoomsPage />)} />
        <Route path="rooms/:roomId" element={later(<RoomInspectorPage />)} />
        <Route path="reports" element={later(<ReportsPage />)} />
        <Route path="reports/:playerId" element={later(<ReportsPlayerPage />)} />
        <Route path=":resource" element={later(<ResourceListPage />)} />
        <Route path=":resource/new" element={form('create')} />
        <Route path=":resource/:id" element={later(<ResourceShowPage />)} />
        <Route path=":resource/:id/edit" element={form('edit')} />
      </Route>
    </Route>,
  ),
  { basename: uiPath },
);

applyTheme();

void i18nReady.finally(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
        <ThemedToaster />
      </QueryClientProvider>
    </StrictMode>,
  ),
);

// ThemedToaster is the toasts' place, in the theme and the language (its
// labels: English until the language's catalog is in, rather than wait).
function ThemedToaster() {
  const theme = useTheme();
  const { t } = useTranslation('common', { useSuspense: false });
  return (
    <Toaster position="bottom-right" richColors closeButton theme={theme}
      containerAriaLabel={t('Notifications')} toastOptions={{ closeButtonAriaLabel: t('Close toast') }} />
  );
}
