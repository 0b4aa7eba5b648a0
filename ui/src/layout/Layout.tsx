import { Link, NavLink, Outlet, useNavigate } from 'react-router';
import { LayoutDashboard, LogOut, Radio, UserCog } from 'lucide-react';
import { toast } from 'sonner';
import { ApiError, errorText } from '../api';
import { useCatalog, useMe, useRoomsEnabled } from '../queries';
import { ResourceIcon } from '../icons';
import { signOut } from '../auth/signOut';
import { OperatorRequired } from '../auth/OperatorRequired';
import { EnrolGate } from '../auth/EnrolGate';
import { ErrorNote, Loading } from '../components/Status';

export function Layout() {
  const catalog = useCatalog();
  if (catalog.error instanceof ApiError && catalog.error.code === 'totp_enrollment_required') return <EnrolGate />;
  if (catalog.error instanceof ApiError && catalog.error.status === 403) return <OperatorRequired />;
  return (
    <div className="shell">
      <Sidebar />
      <div className="main">
        <Header />
        <main className="content">
          {catalog.isPending ? <Loading /> : catalog.isError ? <ErrorNote error={catalog.error} /> : <Outlet />}
        </main>
      </div>
    </div>
  );
}

function Sidebar() {
  const catalog = useCatalog();
  const rooms = useRoomsEnabled();
  return (
    <nav className="sidebar" aria-label="Resources">
      <div className="brand">Game admin</div>
      <NavLink to="/" end className="nav-item">
        <LayoutDashboard size={16} aria-hidden="true" /> Dashboard
      </NavLink>
      {rooms && (
        <NavLink to="/rooms" className="nav-item">
          <Radio size={16} aria-hidden="true" /> Live rooms
        </NavLink>
      )}
      <div className="nav-heading">Resources</div>
      {catalog.data?.map((r) => (
        <NavLink key={r.name} to={'/' + r.name} className="nav-item">
          <ResourceIcon name={r.icon} /> {r.label}
        </NavLink>
      ))}
    </nav>
  );
}

function Header() {
  const me = useMe();
  const navigate = useNavigate();
  const out = (everywhere: boolean) =>
    signOut(() => navigate('/login', { replace: true }), everywhere).catch((err) => toast.error(errorText(err)));
  return (
    <header className="header">
      <div className="operator">
        {me.data && (
          <>
            <span className="operator-email">{me.data.email}</span>
            <span className={'role role-' + me.data.role}>{me.data.role}</span>
          </>
        )}
      </div>
      <Link to="/account" className="button account-link">
        <UserCog size={14} aria-hidden="true" /> Account
      </Link>
      <button type="button" onClick={() => out(false)}>
        <LogOut size={14} aria-hidden="true" /> Sign out
      </button>
      <button type="button" onClick={() => out(true)}>Sign out everywhere</button>
    </header>
  );
}
