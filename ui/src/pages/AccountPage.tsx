import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { toast } from 'sonner';
import { client, errorText, dataOf } from '../api';
import { queryClient, useFeatures, useMe } from '../queries';
import { signOut } from '../auth/signOut';
import { RecoveryCodes, TotpEnrol } from '../auth/TotpEnrol';
import { useSignIns, useTotpStatus } from '../auth/totp';
import { ErrorNote, Loading } from '../components/Status';
import { useConfirm } from '../components/ConfirmDialog';
import { confirmEverywhere } from '../layout/Layout';
import { usePageTitle } from '../names';
import { Time } from '../time';
import '../account.css';

// AccountPage is the operator's own account: password, two-factor sign-in,
// recent sign-ins and "sign out everywhere".
export function AccountPage() {
  const me = useMe();
  usePageTitle('Your account');
  return (
    <div className="account">
      <div className="page-title">
        <h1>Your account</h1>
        {me.data && <span className="muted">{me.data.email || me.data.username}</span>}
      </div>
      <section className="card" aria-labelledby="twofactor">
        <h2 id="twofactor">Two-factor sign-in</h2>
        <TwoFactor />
      </section>
      <section className="card" aria-labelledby="password">
        <h2 id="password">Password</h2>
        <PasswordForm />
      </section>
      <section className="card" aria-labelledby="signins">
        <h2 id="signins">Recent sign-ins</h2>
        <SignIns />
      </section>
    </div>
  );
}

function TwoFactor() {
  const status = useTotpStatus();
  const [codes, setCodes] = useState<string[] | null>(null);
  if (status.isPending) return <Loading />;
  if (status.isError) return <ErrorNote error={status.error} />;
  if (codes) return <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />;
  if (!status.data.enabled) return <TotpEnrol />;
  return (
    <div className="stack">
      <p>
        <span className="badge badge-on">On</span> Sign-in asks for a code from your authenticator app.{' '}
        <span className="muted">{status.data.recoveryCodesLeft} recovery codes left.</span>
      </p>
      <CodeAction label="New recovery codes" path="/auth/totp/recovery-codes" hint="Enter a code from your app to replace your recovery codes."
        onDone={(d) => setCodes(d.recoveryCodes ?? null)} />
      {!status.data.required && (
        <CodeAction label="Turn off" path="/auth/totp/disable" danger allowPassword
          hint="Enter a code from your app, or your password, to turn two-factor sign-in off."
          onDone={() => toast.success('Two-factor sign-in is off')} />
      )}
    </div>
  );
}

// CodeAction is a small form that posts a code (or a password) to path.
function CodeAction({ label, path, hint, danger, allowPassword, onDone }: {
  label: string; path: '/auth/totp/disable' | '/auth/totp/recovery-codes'; hint: string; danger?: boolean; allowPassword?: boolean;
  onDone: (d: { recoveryCodes?: string[] }) => void;
}) {
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState('');
  const [usePassword, setUsePassword] = useState(false);
  const m = useMutation({
    mutationFn: () => dataOf(client.POST(path, { body: usePassword ? { password: value } : { code: value.trim() } })),
    onSuccess: (d) => {
      setOpen(false);
      setValue('');
      void queryClient.invalidateQueries({ queryKey: ['auth'] });
      onDone(d);
    },
  });
  if (!open) return <div><button type="button" className={danger ? 'danger' : undefined} onClick={() => setOpen(true)}>{label}</button></div>;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    m.mutate();
  };
  return (
    <form onSubmit={submit} className="stack narrow">
      <p className="muted">{hint}</p>
      <label>
        {usePassword ? 'Password' : 'Code from the app'}
        {usePassword
          ? <input type="password" name="password" autoComplete="current-password" required value={value} onChange={(e) => setValue(e.target.value)} />
          : <input name="code" inputMode="numeric" autoComplete="one-time-code" maxLength={6} required value={value} onChange={(e) => setValue(e.target.value)} />}
      </label>
      {m.isError && <p className="form-error" role="alert">{errorText(m.error)}</p>}
      <div className="toolbar">
        <button type="submit" className={danger ? 'danger' : 'primary'} disabled={m.isPending}>{label}</button>
        <button type="button" onClick={() => { setOpen(false); m.reset(); }}>Cancel</button>
        {allowPassword && (
          <button type="button" className="link-button" onClick={() => { setUsePassword(!usePassword); setValue(''); }}>
            {usePassword ? 'Use a code instead' : 'Use my password instead'}
          </button>
        )}
      </div>
    </form>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const change = useMutation({
    mutationFn: () => dataOf(client.POST('/auth/password', { body: { current, new: next } })),
    onSuccess: () => {
      setCurrent('');
      setNext('');
      toast.success('Password changed; your other sessions were signed out');
      void queryClient.invalidateQueries({ queryKey: ['auth', 'sessions'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    change.mutate();
  };
  return (
    <form onSubmit={submit} className="stack narrow">
      <label>
        Current password
        <input type="password" name="current" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />
      </label>
      <label>
        New password <span className="muted">(at least 8 characters)</span>
        <input type="password" name="new" autoComplete="new-password" required minLength={8} value={next} onChange={(e) => setNext(e.target.value)} />
      </label>
      {change.isError && <p className="form-error" role="alert">{errorText(change.error)}</p>}
      <div><button type="submit" className="primary" disabled={change.isPending}>Change password</button></div>
    </form>
  );
}

function SignIns() {
  const features = useFeatures();
  const list = useSignIns();
  const navigate = useNavigate();
  const [dialog, ask] = useConfirm();
  const everywhere = async () => {
    if (!(await ask(confirmEverywhere))) return;
    await signOut(() => navigate('/login', { replace: true }), true).catch((err) => toast.error(errorText(err)));
  };
  return (
    <div className="stack">
      {list.isPending ? <Loading /> : list.isError ? <ErrorNote error={list.error} /> : (
        <div className="table-wrap">
          <table className="data-table">
            <thead><tr><th>When</th><th>IP</th><th>Browser</th></tr></thead>
            <tbody>
              {list.data.length === 0 && <tr><td colSpan={3} className="empty muted">No sign-ins recorded.</td></tr>}
              {list.data.map((s, i) => (
                <tr key={i}>
                  <td><Time value={s.time} />{s.secondFactor && <span className="muted"> · {s.secondFactor === 'recovery' ? 'recovery code' : 'with code'}</span>}</td>
                  <td className="mono">{s.ip ?? ''}</td>
                  <td className="user-agent">{s.userAgent ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {features.revokeSessions && (
        <div>
          <p className="muted">Don't recognise a sign-in? End every session, this one included, then change your password.</p>
          <button type="button" className="danger" onClick={() => void everywhere()}>Sign out everywhere</button>
        </div>
      )}
      {dialog}
    </div>
  );
}
