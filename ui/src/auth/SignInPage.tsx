import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { api, errorText } from '../api';
import { queryClient, useAuthStatus } from '../queries';
import { safeNext } from '../uiPath';
import { ErrorNote, Loading } from '../components/Status';

// SignInPage is the way in: "Create the first admin" on a fresh install,
// the sign-in form afterwards. There is no password reset here (SEED.md:
// the integrator provides that page).
export function SignInPage() {
  const status = useAuthStatus();
  const [params] = useSearchParams();
  const next = safeNext(params.get('next')) ?? '/';
  if (status.isPending) return <Loading />;
  if (status.isError) return <ErrorNote error={status.error} />;
  if (status.data.authenticated && !status.data.needsBootstrap) return <Navigate to={next} replace />;
  return (
    <main className="auth-page">
      <div className="auth-card">
        <h1 className="brand">Game admin</h1>
        {status.data.needsBootstrap ? <BootstrapForm next={next} /> : <SignInForm next={next} />}
      </div>
    </main>
  );
}

function useEnter(next: string) {
  const navigate = useNavigate();
  return () => {
    queryClient.clear();
    navigate(next, { replace: true });
  };
}

function SignInForm({ next }: { next: string }) {
  const enter = useEnter(next);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await api.post('/auth/login', { email, password });
      enter();
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} className="stack">
      <h2>Sign in</h2>
      <label>
        Email
        <input type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <label>
        Password
        <input type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      </label>
      {error && <p className="form-error" role="alert">{error}</p>}
      <button type="submit" className="primary" disabled={busy}>Sign in</button>
    </form>
  );
}

function BootstrapForm({ next }: { next: string }) {
  const enter = useEnter(next);
  const [email, setEmail] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await api.post('/auth/bootstrap', { email, password, ...(displayName ? { displayName } : {}) });
      enter();
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} className="stack">
      <h2>Create the first admin</h2>
      <p className="muted">No admin exists yet. The account you create here gets the admin role.</p>
      <label>
        Email
        <input type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <label>
        Display name <span className="muted">(optional)</span>
        <input type="text" name="displayName" value={displayName} onChange={(e) => setDisplayName(e.target.value)} />
      </label>
      <label>
        Password <span className="muted">(at least 8 characters)</span>
        <input type="password" name="password" autoComplete="new-password" required minLength={8} value={password} onChange={(e) => setPassword(e.target.value)} />
      </label>
      {error && <p className="form-error" role="alert">{error}</p>}
      <button type="submit" className="primary" disabled={busy}>Create admin</button>
    </form>
  );
}
