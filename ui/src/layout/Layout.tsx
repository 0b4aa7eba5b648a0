import { useEffect, useRef, useState } from 'react';
import { Link, NavLink, Outlet, useLocation, useNavigate, useNavigationType } from 'react-router';
import * as Dialog from '@radix-ui/react-dialog';
import { Flag, LayoutDashboard, LogIn, LogOut, Menu, Moon, Radio, Search, Sun, UserCog, X } from 'lucide-react';
import { toast } from 'sonner';
import { useTranslation } from 'react-i18next';
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
import i18n from '../i18n';

// Below this width the sidebar is a drawer opened from the header.
const narrow = '(max-width: 767.98px)';
import { CommandPalette } from '../components/CommandPalette';
import { ShortcutHelp } from '../components/ShortcutHelp';

export function Layout() {
  const { t } = useTranslation('common');
  const catalog = useCatalog();
  const phone = useMediaQuery(narrow);
  const [drawer, setDrawer] = useState(false);
  useHeadingFocus();
  if (catalog.error instanceof ApiError && catalog.error.code === 'totp_enrollment_required') return <EnrolGate />;
  if (catalog.error instanceof ApiError && catalog.error.status === 403) return <OperatorRequired />;
  return (
    <div className="shell">
      <a href="#content" className="skip-link">{t('Skip to content')}</a>
      {phone ? (
        <Dialog.Root open={drawer} onOpenChange={setDrawer}>
          <Dialog.Portal>
            <Dialog.Overlay className="drawer-overlay" />
            <Dialog.Content className="drawer" aria-describedby={undefined} onCloseAutoFocus={(e) => {
              // Back on the header's menu button (the drawer has no Dialog.Trigger).
              e.preventDefault();
              document.querySelector<HTMLElement>('.menu-button')?.focus();
            }}>
              <Dialog.Title className="sr-only">{t('Menu')}</Dialog.Title>
              <Dialog.Close asChild>
                <button type="button" className="icon-button drawer-close" aria-label={t('Close the menu')}>
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
      <ShortcutHelp />
    </div>
  );
}

// useHeadingFocus: a move to another page that left the focus nowhere
// (Enter on a list's row, a link that went away with its page) puts it
// on the new page's heading once it shows, so the keyboard and a screen
// reader go on from there. Not on the first page, not on Back or
// Forward (a list puts the focus back on the row it came from), and not
// when the focus is somewhere already (a sidebar link, a field).
function useHeadingFocus() {
  const { pathname } = useLocation();
  const how = useNavigationType();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    if (how === 'POP') return;
    const lost = () => {
      const a = document.activeElement;
      return !a || a === document.body || !a.isConnected || a.id === 'content';
    };
    // The page shows its heading when its data is in: looked for a few
    // seconds, given up as soon as the focus goes somewhere.
    let frame = 0;
    const until = Date.now() + 5000;
    const look = () => {
      if (!lost()) return;
      const h = document.querySelector<HTMLElement>('.content h1');
      if (h) {
        if (!h.hasAttribute('tabindex')) h.tabIndex = -1;
        h.focus();
        return;
      }
      if (Date.now() < until) frame = requestAnimationFrame(look);
    };
    frame = requestAnimationFrame(look);
    return () => cancelAnimationFrame(frame);
  }, [pathname, how]);
}

function Sidebar({ onNavigate }: { onNavigate?: () => void }) {
  const { t } = useTranslation('common');
  const catalog = useCatalog();
  const rooms = useRoomsEnabled();
  const reports = useReportsOn();
  // The players with open reports, from the queue's first page.
  const open = reports.queue ? reports.queue.players.length : 0;
  const openText = reports.queue?.hasMore ? `${open}+` : String(open);
  return (
    <nav className="sidebar" aria-label={t('Resources')} onClick={(e) => (e.target as HTMLElement).closest('a') && onNavigate?.()}>
      <div className="brand">{t('Game admin')}</div>
      <NavLink to="/" end className="nav-item">
        <LayoutDashboard size={16} aria-hidden="true" /> {t('Dashboard')}
      </NavLink>
      {rooms && (
        <NavLink to="/rooms" className="nav-item">
          <Radio size={16} aria-hidden="true" /> {t('Live rooms')}
        </NavLink>
      )}
      {reports.on && (
        <NavLink to="/reports" className="nav-item">
          <Flag size={16} aria-hidden="true" /> {t('Reports')}
          {open > 0 && (
            <>
              <span className="count nav-count" aria-hidden="true">{openText}</span>
              <span className="sr-only">: {t('{{shown}} players with open reports', { count: open, shown: openText })}</span>
            </>
          )}
        </NavLink>
      )}
      <div className="nav-heading">{t('Resources')}</div>
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
  const { t } = useTranslation('common');
  const theme = useTheme();
  const next = theme === 'dark' ? 'light' : 'dark';
  const label = next === 'dark' ? t('Use the dark theme') : t('Use the light theme');
  return (
    <button type="button" className="icon-button theme-toggle" aria-label={label} title={label} onClick={() => setTheme(next)}>
      {theme === 'dark' ? <Sun size={16} aria-hidden="true" /> : <Moon size={16} aria-hidden="true" />}
    </button>
  );
}

function Header({ onMenu }: { onMenu?: () => void }) {
  const { t } = useTranslation('common');
  const me = useMe();
  const session = useSession();
  const features = useFeatures();
  const navigate = useNavigate();
  const [dialog, ask] = useConfirm();
  const out = (everywhere: boolean) =>
    signOut(() => navigate('/login', { replace: true }), everywhere).catch((err) => toast.error(errorText(err)));
  const outEverywhere = async () => {
    if (await ask(confirmEverywhere())) await out(true);
  };
  return (
    <header className="header">
      {onMenu && (
        <button type="button" className="icon-button menu-button" aria-label={t('Open the menu')} onClick={onMenu}>
          <Menu size={20} aria-hidden="true" />
        </button>
      )}
      <div className="operator">
        {session.ended ? (
          // The session ended under the page: say so, and offer the way back in.
          <span className="role role-signed-out" data-testid="signed-out">{t('Signed out')}</span>
        ) : me.data && (
          <>
            <span className="operator-email">{me.data.email || me.data.username}</span>
            <span className={'role role-' + me.data.role}>{me.data.role}</span>
          </>
        )}
      </div>
      <button type="button" className="palette-button" onClick={() => window.dispatchEvent(new Event('open-palette'))} aria-keyshortcuts="Control+K Meta+K">
        <Search size={14} aria-hidden="true" /> <span className="narrow-hide">{t('Search')}</span> <kbd>{t('Ctrl K')}</kbd>
      </button>
      <ThemeToggle />
      <Link to="/account" className="button account-link">
        <UserCog size={14} aria-hidden="true" /> <span className="narrow-hide">{t('Account')}</span>
      </Link>
      {session.ended ? (
        <button type="button" className="primary" onClick={askSignIn}>
          <LogIn size={14} aria-hidden="true" /> {t('Sign in')}
        </button>
      ) : (
        <button type="button" onClick={() => out(false)}>
          <LogOut size={14} aria-hidden="true" /> {t('Sign out')}
        </button>
      )}
      {features.revokeSessions && !session.ended && <button type="button" className="everywhere" onClick={() => void outEverywhere()}>{t('Sign out everywhere')}</button>}
      {dialog}
    </header>
  );
}

// confirmEverywhere is the question before ending every session, in
// the operator's language as it is asked.
export const confirmEverywhere = () => ({
  title: i18n.t('Sign out everywhere?', { ns: 'common' }),
  description: i18n.t('Every session of your account ends, this one included, on every device.', { ns: 'common' }),
  confirmLabel: i18n.t('Sign out everywhere', { ns: 'common' }),
  danger: true,
});
