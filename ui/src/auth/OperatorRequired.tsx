import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { signOut } from './signOut';

// OperatorRequired is what a plain user sees: the panel needs admin or mod.
export function OperatorRequired() {
  const navigate = useNavigate();
  const { t } = useTranslation('auth');
  return (
    <main className="auth-page">
      <div className="auth-card stack">
        <h1>{t('Operator role required')}</h1>
        <p>{t('You are signed in, but only admins and mods can use the admin panel.')}</p>
        <button type="button" onClick={() => void signOut(() => navigate('/login', { replace: true }))}>
          {t('Sign out')}
        </button>
      </div>
    </main>
  );
}
