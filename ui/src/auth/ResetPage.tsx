import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { ApiError, client, errorText, dataOf } from '../api';
import i18n from '../i18n';
import { usePageTitle } from '../names';

// strength is a rough hint, not a rule: the server only asks for 8
// characters. Length counts most; mixing kinds of characters helps. Its
// label is in the operator's language.
export function strength(pw: string): { score: 0 | 1 | 2 | 3; label: string } {
  const t = i18n.getFixedT(null, 'auth');
  if (pw.length < 8) return { score: 0, label: t('Too short: at least 8 characters') };
  const kinds = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((re) => re.test(pw)).length;
  if (pw.length >= 16 || (pw.length >= 12 && kinds >= 3)) return { score: 3, label: t('Strong') };
  if (pw.length >= 12 || kinds >= 3) return { score: 2, label: t('Fair: longer is stronger') };
  return { score: 1, label: t('Weak: use a longer passphrase') };
}

// ResetPage is <UIPath>/reset?token=…, the link of a password reset or an
// invite: the new password twice, then on to sign-in. It needs no session.
export function ResetPage() {
  const { t } = useTranslation('auth');
  usePageTitle(t('Set a password'));
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const reset = useMutation({ mutationFn: () => dataOf(client.POST('/auth/reset', { body: { token, password } })) });
  const hint = strength(password);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (password !== again) {
      setMismatch(true);
      return;
    }
    setMismatch(false);
    reset.mutate();
  };
  const badToken = reset.error instanceof ApiError && reset.error.code === 'invalid_token';
  return (
    <main className="auth-page">
      <div className="auth-card">
        <h1 className="brand">{t('Game admin')}</h1>
        {reset.isSuccess ? (
          <div className="stack" role="status">
            <h2>{t('Password set')}</h2>
            <p>{t('Your new password is in place and every older session has ended.')}</p>
            <Link to="/login" className="button primary">{t('Sign in')}</Link>
          </div>
        ) : token === '' || badToken ? (
          <div className="stack">
            <h2>{t('This link does not work')}</h2>
            <p role="alert">
              {token === ''
                ? t('The link has no token. Ask for a new one, or an admin for a new invite.')
                : t('The link is invalid, has expired (links last 15 minutes) or was already used. Ask for a new one, or an admin for a new invite.')}
            </p>
            <Link to="/login" className="button">{t('Back to sign-in')}</Link>
          </div>
        ) : (
          <form onSubmit={submit} className="stack">
            <h2>{t('Set a new password')}</h2>
            <label>
              {t('New password')}
              <input type="password" name="password" autoComplete="new-password" required minLength={8} aria-describedby="strength"
                value={password} onChange={(e) => setPassword(e.target.value)} />
            </label>
            <div id="strength" className={'strength strength-' + hint.score} aria-live="polite">
              <meter min={0} max={3} low={1.5} high={2.5} optimum={3} value={hint.score} aria-label={t('Password strength')} />
              <span>{password ? hint.label : t('At least 8 characters; a long passphrase is best.')}</span>
            </div>
            <label>
              {t('New password again')}
              <input type="password" name="again" autoComplete="new-password" required minLength={8}
                value={again} onChange={(e) => { setAgain(e.target.value); setMismatch(false); }} />
            </label>
            {mismatch && <p className="form-error" role="alert">{t('The two passwords differ.')}</p>}
            {reset.isError && <p className="form-error" role="alert">{errorText(reset.error)}</p>}
            <button type="submit" className="primary" disabled={reset.isPending}>{t('Set password')}</button>
          </form>
        )}
      </div>
    </main>
  );
}
