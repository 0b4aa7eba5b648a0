import { useEffect, useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { client, errorText, dataOf, type Me } from '../api';
import { queryClient } from '../queries';
import { uiPath } from '../uiPath';
import { Modal } from '../components/ConfirmDialog';
import { TotpStep } from './TotpStep';
import { enableReauth, giveUp, resetSession, signedInAgain, useSession } from './session';

// endedLoginPath is the sign-in page for a session that ended, back to
// where the operator was; it says why.
export function endedLoginPath(): string {
  const { pathname, search } = window.location;
  const route = pathname.startsWith(uiPath) ? pathname.slice(uiPath.length) || '/' : '/';
  return '/login?reason=ended&next=' + encodeURIComponent(uiPath + route + search);
}

// SessionDialog signs the operator in again where they are, when their
// session ended under them: the page, a form being filled in, stays; the
// request that found the session over is sent again once signed in.
// Another account signing in starts over at the dashboard.
export function SessionDialog() {
  const session = useSession();
  useEffect(enableReauth, []);
  if (!session.asking) return null;
  return <SignInAgain />;
}

function SignInAgain() {
  const navigate = useNavigate();
  const { t } = useTranslation('auth');
  const before = queryClient.getQueryData<Me>(['auth', 'me']);
  const [email, setEmail] = useState(before?.email || before?.username || '');
  const [password, setPassword] = useState('');
  const [secondStep, setSecondStep] = useState(false);
  const done = async () => {
    const me = await dataOf(client.GET('/auth/me')).catch(() => undefined);
    if (before && me && me.userId !== before.userId) {
      // Someone else: nothing of the first operator's is theirs to save.
      resetSession();
      queryClient.clear();
      navigate('/', { replace: true });
      return;
    }
    signedInAgain();
    void queryClient.invalidateQueries({ queryKey: ['auth'] });
  };
  const login = useMutation({
    mutationFn: () => dataOf(client.POST('/auth/login', { body: { login: email, password } })),
    onSuccess: (d) => (d.totpRequired ? setSecondStep(true) : void done()),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate();
  };
  return (
    <Modal title={t('Sign in again')} description={t('Your session ended. Sign in to carry on: nothing on this page is lost, and what you were saving is sent once you are in.')} onClose={giveUp} className="session-dialog">
      {secondStep ? (
        <TotpStep onDone={() => void done()} onCancel={() => { setSecondStep(false); setPassword(''); login.reset(); }} />
      ) : (
        <form onSubmit={submit} className="stack">
          <label>
            {t('Email or username')}
            <input type="text" name="login" autoComplete="username" autoCapitalize="none" spellCheck={false} required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus={!email} />
          </label>
          <label>
            {t('Password')}
            <input type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} autoFocus={!!email} />
          </label>
          {login.isError && <p className="form-error" role="alert">{errorText(login.error)}</p>}
          <div className="dialog-buttons">
            <button type="button" onClick={() => { giveUp(); navigate(endedLoginPath()); }}>{t('Go to the sign-in page')}</button>
            <button type="submit" className="primary" disabled={login.isPending || login.isSuccess}>{t('Sign in')}</button>
          </div>
        </form>
      )}
    </Modal>
  );
}
