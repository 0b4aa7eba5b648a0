import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { ApiError, client, errorText, dataOf } from '../api';
import { usePageTitle } from '../names';

// strength is a rough hint, not a rule: the server only asks for 8
// characters. Length counts most; mixing kinds of characters helps.
export function strength(pw: string): { score: 0 | 1 | 2 | 3; label: string } {
  if (pw.length < 8) return { score: 0, label: 'Too short: at least 8 characters' };
  const kinds = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((re) => re.test(pw)).length;
  if (pw.length >= 16 || (pw.length >= 12 && kinds >= 3)) return { score: 3, label: 'Strong' };
  if (pw.length >= 12 || kinds >= 3) return { score: 2, label: 'Fair: longer is stronger' };
  return { score: 1, label: 'Weak: use a longer passphrase' };
}

// ResetPage is <UIPath>/reset?token=…, the link of a password reset or an
// invite: the new password twice, then on to sign-in. It needs no session.
export function ResetPage() {
  usePageTitle('Set a password');
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
        <h1 className="brand">Game admin</h1>
        {reset.isSuccess ? (
          <div className="stack" role="status">
            <h2>Password set</h2>
            <p>Your new password is in place and every older session has ended.</p>
            <Link to="/login" className="button primary">Sign in</Link>
          </div>
        ) : token === '' || badToken ? (
          <div className="stack">
            <h2>This link does not work</h2>
            <p role="alert">
              {token === '' ? 'The link has no token.' : 'The link is invalid, has expired (links last 15 minutes) or was already used.'} Ask for a new
              one, or an admin for a new invite.
            </p>
            <Link to="/login" className="button">Back to sign-in</Link>
          </div>
        ) : (
          <form onSubmit={submit} className="stack">
            <h2>Set a new password</h2>
            <label>
              New password
              <input type="password" name="password" autoComplete="new-password" required minLength={8} aria-describedby="strength"
                value={password} onChange={(e) => setPassword(e.target.value)} />
            </label>
            <div id="strength" className={'strength strength-' + hint.score} aria-live="polite">
              <meter min={0} max={3} low={1.5} high={2.5} optimum={3} value={hint.score} aria-label="Password strength" />
              <span>{password ? hint.label : 'At least 8 characters; a long passphrase is best.'}</span>
            </div>
            <label>
              New password again
              <input type="password" name="again" autoComplete="new-password" required minLength={8}
                value={again} onChange={(e) => { setAgain(e.target.value); setMismatch(false); }} />
            </label>
            {mismatch && <p className="form-error" role="alert">The two passwords differ.</p>}
            {reset.isError && <p className="form-error" role="alert">{errorText(reset.error)}</p>}
            <button type="submit" className="primary" disabled={reset.isPending}>Set password</button>
          </form>
        )}
      </div>
    </main>
  );
}
