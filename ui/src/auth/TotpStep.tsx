import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { client, errorText, dataOf } from '../api';

// TotpStep is sign-in's second step for an operator with two-factor
// sign-in on: a code from the authenticator app, or a recovery code.
// The challenge from the first step travels in its own cookie.
export function TotpStep({ onDone, onCancel }: { onDone: () => void; onCancel: () => void }) {
  const { t } = useTranslation('auth');
  const [recovery, setRecovery] = useState(false);
  const [value, setValue] = useState('');
  const verify = useMutation({
    mutationFn: () => dataOf(client.POST('/auth/login/totp', { body: recovery ? { recoveryCode: value.trim() } : { code: value.trim() } })),
    onSuccess: onDone,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    verify.mutate();
  };
  return (
    <form onSubmit={submit} className="stack">
      <h2>{t('Two-factor sign-in')}</h2>
      {recovery ? (
        <label>
          {t('Recovery code')}
          <input name="recoveryCode" autoComplete="off" required autoFocus value={value} onChange={(e) => setValue(e.target.value)} />
        </label>
      ) : (
        <label>
          {t('Code from your authenticator app')}
          <input name="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" maxLength={6} required autoFocus
            value={value} onChange={(e) => setValue(e.target.value)} />
        </label>
      )}
      {verify.isError && <p className="form-error" role="alert">{errorText(verify.error)}</p>}
      <button type="submit" className="primary" disabled={verify.isPending || verify.isSuccess}>{t('Verify')}</button>
      <div className="toolbar">
        <button type="button" className="link-button" onClick={() => { setRecovery(!recovery); setValue(''); verify.reset(); }}>
          {recovery ? t('Use a code from the app') : t('Use a recovery code')}
        </button>
        <button type="button" className="link-button" onClick={onCancel}>{t('Start over')}</button>
      </div>
    </form>
  );
}
