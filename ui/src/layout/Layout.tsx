import { useState } from 'react';
import { Link, NavLink, Outlet, useNavigate } from 'react-router';
import * as Dialog from '@radix-ui/react-dialog';
import { Flag, LayoutDashboard, LogIn, LogOut, Menu, Moon, Radio, Search, Sun, UserCog, X } from 'lucide-react';
import { toast } from 'sonner';
import { ApiError, errorText } from '../api';
import { useCatalog, useFeatures, useMe, useRoomsEnabled } from '../queries';
import { useReportsOn } from '../reports';
import { ResourceIcon } from '../icons';
import { signOut } from '../auth/signOut';
import { askSignIn, useSession } from '../auth/session';
import { OperatorRequired } from '../auth/OperatorRequired';
import { EnrolGate } from '../auth/EnrolGate';
import { ErrorNote, Loading } from '../components/Status';
import { useConfirm } from '../components/ConfirmDialog';
import { setTheme, useMediaQuery, useTheme } from '../theme';

// Below this width the sidebar is a drawer opened from the header.
const narrow = '(max-width: 767.98px)';
import { CommandPalette } from '../components/CommandPalette';

export function Layout() {
  const catalog = useCatalog();
  const phone = useMediaQuery(narrow);
  const [drawer, setDrawer] = useState(false);
  if (catalog.error instanceof ApiError && catalog.error.code === 'totp_enrollment_required') return <EnrolGate />;
  if (catalog.error instanceof ApiError && catalog.error.status === 403) return <OperatorRequired />;
  return (
    <div className="shell">
      <a href="#content" className="skip-link">Skip to content</a>
      {phone ? (
        <Dialog.Root open={drawer} onOpenChange={setDrawer}>
          <Dialog.Portal>
            <Dialog.Overlay className="drawer-overlay" />
            <Dialog.Content className="drawer" aria-describedby={undefined} onCloseAutoFocus={(e) => {
              // Back on the header's menu button (the drawer has no Dialog.Trigger).
              e.preventDefault();
              document.querySelector<HTMLElement>('.menu-button')?.focus();
            }}>
              <Dialog.Title className="sr-only">Menu</Dialog.Title>
              <Dialog.Close asChild>
                <button type="button" className="icon-button drawer-close" aria-label="Close the menu">
                  <X size={18} aria-hidden="true" />
                </button>
              </Dialog.Close>
              <Sidebar onNavigate={() => setDrawer(false)} />
            </Dialog.Content>
          </Dialog.Portal>
        </Dialog.Root>
      ) : (
        <Sidebar />
      )}
      <div className="main">
        <Header onMenu={phone ? () => setDrawer(true) : undefined} />
        <main className="content" id="content" tabIndex={-1}>
          {catalog.isPending ? <Loading /> : catalog.isError ? <ErrorNote error={catalog.error} /> : <Outlet />}
        </main>
      </div>
      {catalog.isSuccess && <CommandPalette />}
    </div>
  );
}

function Sidebar({ onNavigate }: { onNavigate?: () => void }) {
  const catalog = useCatalog();
  const rooms = useRoomsEnabled();
  const reports = useReportsOn();
  // The players with open reports, from the queue's first page.
  const open = reports.queue ? reports.queue.players.length : 0;
  const openText = reports.queue?.hasMore ? `${open}+` : String(open);
  return (
    <nav className="sidebar" aria-label="Resources" onClick={(e) => (e.target as HTMLElement).closest('a') && onNavigate?.()}>
      <div className="brand">Game admin</div>
      <NavLink to="/" end className="nav-item">
        <LayoutDashboard size={16} aria-hidden="true" /> Dashboard
      </NavLink>
      {rooms && (
        <NavLink to="/rooms" className="nav-item">
          <Radio size={16} aria-hidden="true" /> Live rooms
        </NavLink>
      )}
      {reports.on && (
        <NavLink to="/reports" className="nav-item">
          <Flag size={16} aria-hidden="true" /> Reports
          {open > 0 && (
            <>
              <span className="count nav-count" aria-hidden="true">{openText}</span>
              <span className="sr-only">: {openText} players with open reports</span>
            </>
          )}
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

// ThemeToggle switches light and dark; the choice is remembered in this
// browser (theme.ts).
export function ThemeToggle() {
  const theme = useTheme();
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button type="button" className="icon-button theme-toggle" aria-label={`Use the ${next} theme`} title={`Use the ${next} theme`} onClick={() => setTheme(next)}>
      {theme === 'dark' ? <Sun size={16} aria-hidden="true" /> : <Moon size={16} aria-hidden="true" />}
    </button>
  );
}

function Header({ onMenu }: { onMenu?: () => void }) {
  const me = useMe();
  const session = useSession();
  const features = useFeatures();
  const navigate = useNavigate();
  const [dialog, ask] = useConfirm();
  const out = (everywhere: boolean) =>
    signOut(() => navigate('/login', { replace: true }), everywhere).catch((err) => toast.error(errorText(err)));
  const outEverywhere = async () => {
    if (await ask(confirmEverywhere)) await out(true);
  };
  return (
    <header className="header">
      {onMenu && (
        <button type="button" className="icon-button menu-button" aria-label="Open the menu" onClick={onMenu}>
          <Menu size={20} aria-hidden="true" />
        </button>
      )}
      <div className="operator">
        {session.ended ? (
          // The session ended under the page: say so, and offer the way back in.
          <span className="role role-signed-out" data-testid="signed-out">Signed out</span>
        ) : me.data && (
          <>
            <span className="operator-email">{me.data.email || me.data.username}</span>
            <span className={'role role-' + me.data.role}>{me.data.role}</span>
          </>
        )}
      </div>
      <button type="button" className="palette-button" onClick={() => window.dispatchEvent(new Event('open-palette'))} aria-keyshortcuts="Control+K Meta+K">
        <Search size={14} aria-hidden="true" /> <span className="narrow-hide">Search</span> <kbd>Ctrl K</kbd>
      </button>
      <ThemeToggle />
      <Link to="/account" className="button account-link">
        <UserCog size={14} aria-hidden="true" /> <span className="narrow-hide">Account</span>
      </Link>
      {session.ended ? (
        <button type="button" className="primary" onClick={askSignIn}>
          <LogIn size={14} aria-hidden="true" /> Sign in
        </button>
      ) : (
        <button type="button" onClick={() => out(false)}>
          <LogOut size={14} aria-hidden="true" /> Sign out
        </button>
      )}
      {features.revokeSessions && !session.ended && <button type="button" className="everywhere" onClick={() => void outEverywhere()}>Sign out everywhere</button>}
      {dialog}
    </header>
  );
}

// confirmEverywhere is the question before ending every session.
export const confirmEverywhere = {
  title: 'Sign out everywhere?',
  description: 'Every session of your account ends, this one included, on every device.',
  confirmLabel: 'Sign out everywhere',
  danger: true,
};
