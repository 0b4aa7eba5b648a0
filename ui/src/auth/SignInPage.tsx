import { useEffect, useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { Trans, useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { client, errorText, dataOf } from '../api';
import { queryClient, useAuthStatus } from '../queries';
import { safeNext, type Next } from '../uiPath';
import { ErrorNote, Loading } from '../components/Status';
import { TotpStep } from './TotpStep';

// SignInPage is the way in: "Create the first admin" on a fresh install
// (at /setup?token=… from the link the server logged), the sign-in form
// afterwards. It offers no "forgot password" form: a reset
// link (OnResetRequest) or an admin's invite leads to ResetPage.
export function SignInPage() {
  const { t } = useTranslation('auth');
  const status = useAuthStatus();
  const [params] = useSearchParams();
  const next = safeNext(params.get('next')) ?? { route: '/' };
  if (status.isPending) return <Loading />;
  if (status.isError) return <ErrorNote error={status.error} />;
  // A session that just ended may still be cached as signed in: the
  // fresh answer decides.
  if (status.data.authenticated && status.isFetching) return <Loading />;
  if (status.data.authenticated && !status.data.needsBootstrap) {
    return 'href' in next ? <Leave href={next.href} /> : <Navigate to={next.route} replace />;
  }
  return (
    <main className="auth-page">
      <div className="auth-card">
        <h1 className="brand">{t('Game admin')}</h1>
        {status.data.needsBootstrap ? (
          <BootstrapForm next={next} token={params.get('token') ?? ''} tokenRequired={!!status.data.setupTokenRequired} fields={status.data.loginFields} />
        ) : (
          <>
            {params.get('reason') === 'ended' && (
              <p className="notice" role="status">{t('Your session ended — sign in again.')}</p>
            )}
            <SignInForm next={next} totp={params.get('step') === 'totp'} fields={status.data.loginFields} />
          </>
        )}
      </div>
    </main>
  );
}

// Leave loads a page of the game's, outside the panel.
function Leave({ href }: { href: string }) {
  useEffect(() => window.location.replace(href), [href]);
  return <Loading />;
}

function useEnter(next: Next) {
  const navigate = useNavigate();
  return () => {
    queryClient.clear();
    if ('href' in next) window.location.assign(next.href);
    else navigate(next.route, { replace: true });
  };
}

type LoginField = 'email' | 'username';

// loginLabel names the sign-in field after what the server matches
// (/auth/status's loginFields): "Email or username" when it takes both.
function loginLabel(fields: LoginField[] | undefined, t: TFunction<'auth'>): string {
  const email = !fields || fields.includes('email');
  const username = !!fields?.includes('username');
  return email && username ? t('Email or username') : username ? t('Username') : t('Email');
}

// SignInForm starts at the second step with ?step=totp: the game's own
// sign-in (Auth().StartSession) left a two-factor challenge pending. Its
// one field takes an email or a username (sent as login).
function SignInForm({ next, totp, fields }: { next: Next; totp: boolean; fields?: LoginField[] }) {
  const { t } = useTranslation('auth');
  const enter = useEnter(next);
  const [loginName, setLoginName] = useState('');
  const [password, setPassword] = useState('');
  const [secondStep, setSecondStep] = useState(totp);
  const login = useMutation({
    mutationFn: () => dataOf(client.POST('/auth/login', { body: { login: loginName, password } })),
    onSuccess: (d) => (d.totpRequired ? setSecondStep(true) : enter()),
  });
  if (secondStep) return <TotpStep onDone={enter} onCancel={() => { setSecondStep(false); setPassword(''); login.reset(); }} />;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate();
  };
  return (
    <form onSubmit={submit} className="stack">
      <h2>{t('Sign in')}</h2>
      <label>
        {loginLabel(fields, t)}
        <input type="text" name="login" autoComplete="username" autoCapitalize="none" spellCheck={false} required value={loginName} onChange={(e) => setLoginName(e.target.value)} />
      </label>
      <label>
        {t('Password')}
        <input type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      </label>
      {login.isError && <p className="form-error" role="alert">{errorText(login.error)}</p>}
      <button type="submit" className="primary" disabled={login.isPending || login.isSuccess}>{t('Sign in')}</button>
    </form>
  );
}

// BootstrapForm creates the first admin. The server wants the setup
// token, which only the link it logged carries: without
// one, the page says where to find it instead of a form that cannot work.
// With usernames (loginFields), it asks for one too: optional beside an
// email, required when the users table has no email column.
function BootstrapForm({ next, token, tokenRequired, fields }: { next: Next; token: string; tokenRequired: boolean; fields?: LoginField[] }) {
  const { t } = useTranslation('auth');
  const enter = useEnter(next);
  const withUsername = !!fields?.includes('username');
  const withEmail = !fields || fields.includes('email');
  const [email, setEmail] = useState('');
  const [username, setUsername] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [password, setPassword] = useState('');
  const bootstrap = useMutation({
    mutationFn: () =>
      dataOf(client.POST('/auth/bootstrap', { body: { ...(email ? { email } : {}), ...(username ? { username } : {}), password, ...(displayName ? { displayName } : {}), ...(token ? { token } : {}) } })),
    onSuccess: enter,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    bootstrap.mutate();
  };
  if (tokenRequired && !token) {
    return (
      <div className="stack">
        <h2>{t('Create the first admin')}</h2>
        <p>
          <Trans t={t} i18nKey="No admin exists yet. To create one, open the one-time setup link the game server wrote to its log when it started: it ends in <code>{{path}}</code>." values={{ path: '/setup?token=…' }} components={{ code: <code /> }} />
        </p>
        <p className="muted">{t('Each start writes a new link. A deployment can fix the token with the SetupToken option instead.')}</p>
      </div>
    );
  }
  return (
    <form onSubmit={submit} className="stack">
      <h2>{t('Create the first admin')}</h2>
      <p className="muted">{t('No admin exists yet. The account you create here gets the admin role.')}</p>
      {withUsername && (
        <label>
          {t('Username')} {withEmail && <span className="muted">{t('(optional)')}</span>}
          <input type="text" name="username" autoComplete={withEmail ? 'off' : 'username'} autoCapitalize="none" spellCheck={false} required={!withEmail} value={username} onChange={(e) => setUsername(e.target.value)} />
        </label>
      )}
      {withEmail && (
        <label>
          {t('Email')}
          <input type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
      )}
      <label>
        {t('Display name')} <span className="muted">{t('(optional)')}</span>
        <input type="text" name="displayName" value={displayName} onChange={(e) => setDisplayName(e.target.value)} />
      </label>
      <label>
        {t('Password')} <span className="muted">{t('(at least 8 characters)')}</span>
        <input type="password" name="password" autoComplete="new-password" required minLength={8} value={password} onChange={(e) => setPassword(e.target.value)} />
      </label>
      {bootstrap.isError && <p className="form-error" role="alert">{errorText(bootstrap.error)}</p>}
      <button type="submit" className="primary" disabled={bootstrap.isPending || bootstrap.isSuccess}>{t('Create admin')}</button>
    </form>
  );
}
