import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Trans, useTranslation } from 'react-i18next';
import { client, errorText, dataOf } from '../api';
import { queryClient } from '../queries';
import '../account.css';

// TotpEnrol walks an operator through turning two-factor sign-in on: a QR
// code for the authenticator app, the first code to confirm it, then the
// recovery codes, shown this once.
export function TotpEnrol({ onDone }: { onDone?: () => void }) {
  const { t } = useTranslation('auth');
  const [codes, setCodes] = useState<string[] | null>(null);
  const [code, setCode] = useState('');
  const enroll = useMutation({ mutationFn: () => dataOf(client.POST('/auth/totp/enroll')) });
  const confirm = useMutation({
    mutationFn: () => dataOf(client.POST('/auth/totp/confirm', { body: { code: code.trim() } })),
    onSuccess: (d) => setCodes(d.recoveryCodes ?? []),
  });
  if (codes) return <RecoveryCodes codes={codes} onDone={() => {
    void queryClient.invalidateQueries();
    onDone?.();
  }} />;
  if (!enroll.data) {
    return (
      <div className="stack">
        <p className="muted">{t('Use an authenticator app (1Password, Google Authenticator, Aegis…) to sign in with a code as well as your password.')}</p>
        {enroll.isError && <p className="form-error" role="alert">{errorText(enroll.error)}</p>}
        <div>
          <button type="button" className="primary" disabled={enroll.isPending} onClick={() => enroll.mutate()}>
            {t('Set up two-factor sign-in')}
          </button>
        </div>
      </div>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    confirm.mutate();
  };
  return (
    <form onSubmit={submit} className="stack totp-enrol">
      <p>{t('Scan this code with your authenticator app, then enter the six-digit code it shows.')}</p>
      <img className="qr" src={enroll.data.qr} width={200} height={200} alt={t('QR code for your authenticator app')} />
      <details>
        <summary>{t("Can't scan it?")}</summary>
        <p className="muted">{t('Enter this key in the app instead:')}</p>
        <code className="secret" data-testid="totp-secret">{enroll.data.secret}</code>
      </details>
      <label>
        {t('Code from the app')}
        <input name="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" maxLength={6} required
          value={code} onChange={(e) => setCode(e.target.value)} />
      </label>
      {confirm.isError && <p className="form-error" role="alert">{errorText(confirm.error)}</p>}
      <div>
        <button type="submit" className="primary" disabled={confirm.isPending}>{t('Turn on')}</button>
      </div>
    </form>
  );
}

// RecoveryCodes shows freshly issued recovery codes once.
export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const { t } = useTranslation('auth');
  return (
    <div className="stack">
      <p>
        <Trans t={t} i18nKey="<strong>Save these recovery codes now.</strong> Each signs you in once if you lose your phone; they are not shown again." components={{ strong: <strong /> }} />
      </p>
      <ol className="recovery-codes mono" data-testid="recovery-codes">
        {codes.map((c) => <li key={c}>{c}</li>)}
      </ol>
      <div className="toolbar">
        <button type="button" onClick={() => void navigator.clipboard?.writeText(codes.join('\n'))}>{t('Copy')}</button>
        <button type="button" className="primary" onClick={onDone}>{t('I saved them')}</button>
      </div>
    </div>
  );
}
