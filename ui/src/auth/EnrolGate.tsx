import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { signOut } from './signOut';
import { TotpEnrol } from './TotpEnrol';

// EnrolGate is all an operator sees while the server's RequireTOTP makes
// them enrol a second factor first.
export function EnrolGate() {
  const navigate = useNavigate();
  const { t } = useTranslation('auth');
  return (
    <main className="auth-page">
      <div className="auth-card stack">
        <h1 className="brand">{t('Game admin')}</h1>
        <h2>{t('Set up two-factor sign-in')}</h2>
        <p>{t('This panel requires operators to sign in with a code from an authenticator app. Set it up to continue.')}</p>
        <TotpEnrol />
        <button type="button" onClick={() => void signOut(() => navigate('/login', { replace: true }))}>{t('Sign out')}</button>
      </div>
    </main>
  );
}
