import { useEffect } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { queryClient, setUnauthorizedHandler, useAuthStatus } from '../queries';
import { uiPath } from '../uiPath';
import { Layout } from '../layout/Layout';
import { ErrorNote, Loading } from '../components/Status';
import { OperatorRequired } from './OperatorRequired';
import { endedLoginPath, SessionDialog } from './SessionDialog';
import { reauthEnabled } from './session';

function loginPath(pathname: string, search: string): string {
  return '/login?next=' + encodeURIComponent(uiPath + pathname + search);
}

// UnauthorizedRedirect sends a 401 outside the layout (where the sign-in
// dialog answers it) to the sign-in page, which says the session ended,
// keeping where the operator was in ?next=.
export function UnauthorizedRedirect() {
  const navigate = useNavigate();
  useEffect(() => {
    setUnauthorizedHandler(() => {
      const { pathname } = window.location;
      const route = pathname.startsWith(uiPath) ? pathname.slice(uiPath.length) || '/' : '/';
      if (route.startsWith('/login') || route.startsWith('/reset')) return;
      // In the layout, the sign-in dialog and the header say it: the page,
      // and what was typed in it, stay.
      if (reauthEnabled()) return;
      navigate(endedLoginPath(), { replace: true });
      // Forget the session's answers (auth status included) once the
      // sign-in page is the route, so nothing cached leads back in.
      queryClient.clear();
    });
  }, [navigate]);
  return null;
}

// RequireOperator lets admins and mods into the panel's layout.
export function RequireOperator() {
  const status = useAuthStatus();
  const location = useLocation();
  if (status.isPending) return <Loading />;
  if (status.isError) return <ErrorNote error={status.error} />;
  const s = status.data;
  if (s.needsBootstrap || !s.authenticated) return <Navigate to={loginPath(location.pathname, location.search)} replace />;
  if (s.role !== 'admin' && s.role !== 'mod') return <OperatorRequired />;
  return (
    <>
      <Layout />
      <SessionDialog />
    </>
  );
}
