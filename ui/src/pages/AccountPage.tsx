import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { toast } from 'sonner';
import { useTranslation } from 'react-i18next';
import { client, errorText, dataOf, type Me } from '../api';
import { applyAccountLanguage, browserLanguage, languages } from '../i18n';
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
// recent sign-ins and "sign out everywhere", and the panel's language.
export function AccountPage() {
  const { t } = useTranslation('account');
  const me = useMe();
  usePageTitle(t('Your account'));
  return (
    <div className="account">
      <div className="page-title">
        <h1>{t('Your account')}</h1>
        {me.data && <span className="muted">{me.data.email || me.data.username}</span>}
      </div>
      <section className="card" aria-labelledby="twofactor">
        <h2 id="twofactor">{t('Two-factor sign-in')}</h2>
        <TwoFactor />
      </section>
      <section className="card" aria-labelledby="password">
        <h2 id="password">{t('Password')}</h2>
        <PasswordForm />
      </section>
      <section className="card" aria-labelledby="signins">
        <h2 id="signins">{t('Recent sign-ins')}</h2>
        <SignIns />
      </section>
      <section className="card" aria-labelledby="language">
        <h2 id="language">{t('Language')}</h2>
        <LanguageChoice />
      </section>
    </div>
  );
}

function TwoFactor() {
  const { t } = useTranslation('account');
  const status = useTotpStatus();
  const [codes, setCodes] = useState<string[] | null>(null);
  if (status.isPending) return <Loading />;
  if (status.isError) return <ErrorNote error={status.error} />;
  if (codes) return <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />;
  if (!status.data.enabled) return <TotpEnrol />;
  return (
    <div className="stack">
      <p>
        <span className="badge badge-on">{t('On')}</span> {t('Sign-in asks for a code from your authenticator app.')}{' '}
        <span className="muted">{t('{{count}} recovery codes left.', { count: status.data.recoveryCodesLeft })}</span>
      </p>
      <CodeAction label={t('New recovery codes')} path="/auth/totp/recovery-codes" hint={t('Enter a code from your app to replace your recovery codes.')}
        onDone={(d) => setCodes(d.recoveryCodes ?? null)} />
      {!status.data.required && (
        <CodeAction label={t('Turn off')} path="/auth/totp/disable" danger allowPassword
          hint={t('Enter a code from your app, or your password, to turn two-factor sign-in off.')}
          onDone={() => toast.success(t('Two-factor sign-in is off'))} />
      )}
    </div>
  );
}

// CodeAction is a small form that posts a code (or a password) to path.
function CodeAction({ label, path, hint, danger, allowPassword, onDone }: {
  label: string; path: '/auth/totp/disable' | '/auth/totp/recovery-codes'; hint: string; danger?: boolean; allowPassword?: boolean;
  onDone: (d: { recoveryCodes?: string[] }) => void;
}) {
  const { t } = useTranslation('account');
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
        {usePassword ? t('Password') : t('Code from the app')}
        {usePassword
          ? <input type="password" name="password" autoComplete="current-password" required value={value} onChange={(e) => setValue(e.target.value)} />
          : <input name="code" inputMode="numeric" autoComplete="one-time-code" maxLength={6} required value={value} onChange={(e) => setValue(e.target.value)} />}
      </label>
      {m.isError && <p className="form-error" role="alert">{errorText(m.error)}</p>}
      <div className="toolbar">
        <button type="submit" className={danger ? 'danger' : 'primary'} disabled={m.isPending}>{label}</button>
        <button type="button" onClick={() => { setOpen(false); m.reset(); }}>{t('Cancel')}</button>
        {allowPassword && (
          <button type="button" className="link-button" onClick={() => { setUsePassword(!usePassword); setValue(''); }}>
            {usePassword ? t('Use a code instead') : t('Use my password instead')}
          </button>
        )}
      </div>
    </form>
  );
}

function PasswordForm() {
  const { t } = useTranslation('account');
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const change = useMutation({
    mutationFn: () => dataOf(client.POST('/auth/password', { body: { current, new: next } })),
    onSuccess: () => {
      setCurrent('');
      setNext('');
      toast.success(t('Password changed; your other sessions were signed out'));
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
        {t('Current password')}
        <input type="password" name="current" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />
      </label>
      <label>
        {t('New password')} <span className="muted">{t('(at least 8 characters)')}</span>
        <input type="password" name="new" autoComplete="new-password" required minLength={8} value={next} onChange={(e) => setNext(e.target.value)} />
      </label>
      {change.isError && <p className="form-error" role="alert">{errorText(change.error)}</p>}
      <div><button type="submit" className="primary" disabled={change.isPending}>{t('Change password')}</button></div>
    </form>
  );
}

function SignIns() {
  const { t } = useTranslation('account');
  const features = useFeatures();
  const list = useSignIns();
  const navigate = useNavigate();
  const [dialog, ask] = useConfirm();
  const everywhere = async () => {
    if (!(await ask(confirmEverywhere()))) return;
    await signOut(() => navigate('/login', { replace: true }), true).catch((err) => toast.error(errorText(err)));
  };
  return (
    <div className="stack">
      {list.isPending ? <Loading /> : list.isError ? <ErrorNote error={list.error} /> : (
        // On a phone the browsers' names make it wider than the screen: it
        // scrolls, so it takes focus (the arrow keys scroll it).
        <div className="table-wrap" tabIndex={0} role="region" aria-label={t('Recent sign-ins')}>
          <table className="data-table">
            <thead><tr><th>{t('When')}</th><th>{t('IP')}</th><th>{t('Browser')}</th></tr></thead>
            <tbody>
              {list.data.length === 0 && <tr><td colSpan={3} className="empty muted">{t('No sign-ins recorded.')}</td></tr>}
              {list.data.map((s, i) => (
                <tr key={i}>
                  <td><Time value={s.time} />{s.secondFactor && <span className="muted"> · {s.secondFactor === 'recovery' ? t('recovery code') : t('with code')}</span>}</td>
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
          <p className="muted">{t("Don't recognise a sign-in? End every session, this one included, then change your password.")}</p>
          <button type="button" className="danger" onClick={() => void everywhere()}>{t('Sign out everywhere')}</button>
        </div>
      )}
      {dialog}
    </div>
  );
}

// accountLocale is the language the operator chose for their account
// (/auth/me's locale): "" for the browser's; undefined before the server
// says.
function accountLocale(me: Me | undefined): string | undefined {
  return me?.locale;
}

// putLocale keeps the operator's language in their account (PUT
// /auth/locale; "" for the browser's).
const putLocale = (locale: string) => dataOf(client.PUT('/auth/locale', { body: { locale } }));

// LanguageChoice is the panel's language: the browser's (named as it is
// now), or one of the shipped languages, each named in itself. The choice
// is kept in the account, so it follows the operator to another browser.
function LanguageChoice() {
  const { t } = useTranslation('account');
  const me = useMe();
  const choose = useMutation({
    mutationFn: putLocale,
    onSuccess: async (_, locale) => {
      await queryClient.cancelQueries({ queryKey: ['auth', 'me'] });
      queryClient.setQueryData<Me>(['auth', 'me'], (m) => (m ? ({ ...m, locale } as Me) : m));
      applyAccountLanguage(locale);
    },
  });
  const value = choose.isPending ? choose.variables : (accountLocale(me.data) ?? '');
  return (
    <div className="stack narrow">
      <label>
        {t('Language of the panel')}
        <select name="locale" value={value} disabled={!me.data} onChange={(e) => choose.mutate(e.target.value)}>
          <option value="">{t("Browser's language ({{name}})", { name: languages[browserLanguage()] })}</option>
          {Object.entries(languages).map(([code, name]) => (
            <option key={code} value={code} lang={code}>{name}</option>
          ))}
        </select>
      </label>
      {choose.isError && <p className="form-error" role="alert">{errorText(choose.error)}</p>}
    </div>
  );
}
