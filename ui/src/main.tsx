import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, createRoutesFromElements, Outlet, Route, RouterProvider } from 'react-router';
import { Toaster } from 'sonner';
import { applyTheme, useTheme } from './theme';
import 'sonner/dist/styles.css';
import './styles.css';
import { queryClient } from './queries';
import { uiPath } from './uiPath';
import { SignInPage } from './auth/SignInPage';
import { ResetPage } from './auth/ResetPage';
import { RequireOperator, UnauthorizedRedirect } from './auth/RequireOperator';
import { DashboardPage } from './pages/DashboardPage';
import { ResourceListPage } from './pages/ResourceListPage';
import { ResourceShowPage } from './pages/ResourceShowPage';
import { RoomsPage } from './pages/RoomsPage';
import { RoomInspectorPage } from './pages/RoomInspectorPage';
import { AccountPage } from './pages/AccountPage';
import { Loading } from './components/Status';

// Forms load on first use: their pickers, switches and JSON editor are
// not part of the first page load (which stays under 200 KB gzip).
const ResourceFormPage = lazy(() => import('./pages/ResourceFormPage').then((m) => ({ default: m.ResourceFormPage })));
const form = (mode: 'create' | 'edit') => (
  <Suspense fallback={<Loading />}>
    <ResourceFormPage mode={mode} />
  </Suspense>
);

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
        <Route path="account" element={<AccountPage />} />
        <Route path="rooms" element={<RoomsPage />} />
        <Route path="rooms/:roomId" element={<RoomInspectorPage />} />
        <Route path=":resource" element={<ResourceListPage />} />
        <Route path=":resource/new" element={form('create')} />
        <Route path=":resource/:id" element={<ResourceShowPage />} />
        <Route path=":resource/:id/edit" element={form('edit')} />
      </Route>
    </Route>,
  ),
  { basename: uiPath },
);

applyTheme();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
      <ThemedToaster />
    </QueryClientProvider>
  </StrictMode>,
);

function ThemedToaster() {
  const theme = useTheme();
  return <Toaster position="bottom-right" richColors closeButton theme={theme} />;
}
