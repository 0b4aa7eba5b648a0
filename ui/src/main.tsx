import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter, Route, Routes } from 'react-router';
import { Toaster } from 'sonner';
import 'sonner/dist/styles.css';
import './styles.css';
import { queryClient } from './queries';
import { uiPath } from './uiPath';
import { SignInPage } from './auth/SignInPage';
import { RequireOperator, UnauthorizedRedirect } from './auth/RequireOperator';
import { DashboardPage } from './pages/DashboardPage';
import { ResourceListPage } from './pages/ResourceListPage';
import { ResourceShowPage } from './pages/ResourceShowPage';
import { ResourceFormPage } from './pages/ResourceFormPage';
import { RoomsPage } from './pages/RoomsPage';
import { RoomInspectorPage } from './pages/RoomInspectorPage';
import { AccountPage } from './pages/AccountPage';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename={uiPath}>
        <UnauthorizedRedirect />
        <Routes>
          <Route path="/login" element={<SignInPage />} />
          <Route element={<RequireOperator />}>
            <Route index element={<DashboardPage />} />
            <Route path="account" element={<AccountPage />} />
            <Route path="rooms" element={<RoomsPage />} />
            <Route path="rooms/:roomId" element={<RoomInspectorPage />} />
            <Route path=":resource" element={<ResourceListPage />} />
            <Route path=":resource/new" element={<ResourceFormPage mode="create" />} />
            <Route path=":resource/:id" element={<ResourceShowPage />} />
            <Route path=":resource/:id/edit" element={<ResourceFormPage mode="edit" />} />
          </Route>
        </Routes>
      </BrowserRouter>
      <Toaster position="bottom-right" richColors closeButton />
    </QueryClientProvider>
  </StrictMode>,
);
