import { useId, useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { errorText, type BanPreset } from '../api';
import i18n, { formatNumber } from '../i18n';
import { useMe } from '../queries';
import { Modal } from './ConfirmDialog';

// The lengths a ban is usually given, and the explicit "permanent", are
// the server's (GET /auth/me banPresets); then a date of the operator's
// choosing. The form has no default, so a ban is never permanent because
// a date was left empty. A preset is said from its length (banLength), not
// by the server's English label.
const custom = 'custom';

// units are the lengths a ban's length is said in, longest first.
const units = [
  { unit: 'day', seconds: 24 * 60 * 60 },
  { unit: 'hour', seconds: 60 * 60 },
  { unit: 'minute', seconds: 60 },
] as const;

// durationWords says a length of time in the operator's language, in the
// longest unit that divides it: "7 days", "1 hour" ("7 Tage", "1 Stunde").
export function durationWords(seconds: number): string {
  const u = units.find((x) => seconds % x.seconds === 0);
  return u
    ? formatNumber(seconds / u.seconds, { style: 'unit', unit: u.unit, unitDisplay: 'long' })
    : formatNumber(seconds, { style: 'unit', unit: 'second', unitDisplay: 'long' });
}

// banLength says a ban preset: its length ("7 days"), or "Permanent" for
// one for good.
export function banLength(p: BanPreset): string {
  return p.seconds > 0 ? durationWords(p.seconds) : i18n.t('Permanent', { ns: 'moderation' });
}

// timeZone is the operator's time zone as the browser names it
// ("Europe/Berlin"), which a custom end is read in.
const timeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || i18n.t('local time', { ns: 'moderation' });

// BanBody is what every ban endpoint takes.
export interface BanBody {
  reason?: string;
  until: string | null;
}

// BanForm is the one ban form, on the user page, in the command palette
// and for a selection of users: a reason, and how long (a choice, never
// implied). onSubmit sends it (POST /users/{id}/ban or
// /users/_bulk/ban); a failure is shown in the form.
export function BanForm<T>({ name, onSubmit, onCancel, onDone, cancelLabel }: {
  name: string;
  onSubmit: (body: BanBody) => Promise<T>;
  onCancel: () => void;
  onDone: (r: T) => void;
  cancelLabel?: string;
}) {
  const { t } = useTranslation('moderation');
  const id = useId();
  const [reason, setReason] = useState('');
  const durations = [
    ...(useMe().data?.banPresets ?? []).map((p) => ({ key: p.key, label: banLength(p), seconds: p.seconds })),
    { key: custom, label: t('Until a date…'), seconds: 0 },
  ];
  const [duration, setDuration] = useState('');
  const [until, setUntil] = useState('');
  const [problem, setProblem] = useState('');
  const ban = useMutation({
    mutationFn: (end: string | null) => onSubmit({ ...(reason.trim() ? { reason: reason.trim() } : {}), until: end }),
    onSuccess: onDone,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const d = durations.find((x) => x.key === duration);
    if (!d) return setProblem(t('Choose how long the ban lasts.'));
    let end: string | null = null;
    if (d.key === custom) {
      const at = until ? new Date(until) : null;
      if (!at || Number.isNaN(at.getTime())) return setProblem(t('Pick the date and time the ban ends.'));
      if (at.getTime() <= Date.now()) return setProblem(t('The end is in the past: pick a later date.'));
      end = at.toISOString();
    } else if (d.seconds > 0) {
      end = new Date(Date.now() + d.seconds * 1000).toISOString();
    }
    setProblem('');
    ban.mutate(end);
  };
  return (
    <form className="stack ban-form" onSubmit={submit} noValidate>
      <label>
        {t('Reason')} <span className="muted">{t('(optional, at most 500 characters; the player is told)')}</span>
        <textarea name="reason" maxLength={500} autoFocus value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      <fieldset className="choices" aria-describedby={problem ? id + '-problem' : undefined}>
        <legend>{t('How long')}</legend>
        {durations.map((d) => (
          <label key={d.key} className="choice">
            <input type="radio" name="duration" value={d.key} checked={duration === d.key} onChange={() => { setDuration(d.key); setProblem(''); }} />
            {d.label}
          </label>
        ))}
      </fieldset>
      {duration === custom && (
        <label>
          {t('Ends at')} <span className="muted">{t('(your time: {{zone}})', { zone: timeZone() })}</span>
          <input type="datetime-local" name="until" step="60" value={until} onChange={(e) => setUntil(e.target.value)} />
        </label>
      )}
      {(problem || ban.isError) && (
        <p className="form-error" role="alert" id={id + '-problem'}>{problem || errorText(ban.error)}</p>
      )}
      <div className="dialog-buttons">
        <button type="button" onClick={onCancel}>{cancelLabel ?? t('Cancel')}</button>
        <button type="submit" className="danger" disabled={ban.isPending || ban.isSuccess}>{t('Ban {{name}}', { name })}</button>
      </div>
    </form>
  );
}

// BanDialog is BanForm in a dialog titled "Ban <name>".
export function BanDialog<T>({ name, onSubmit, onClose, onDone }: {
  name: string;
  onSubmit: (body: BanBody) => Promise<T>;
  onClose: () => void;
  onDone: (r: T) => void;
}) {
  const { t } = useTranslation('moderation');
  return (
    <Modal title={t('Ban {{name}}', { name })} onClose={onClose}>
      <BanForm name={name} onSubmit={onSubmit} onCancel={onClose} onDone={onDone} />
    </Modal>
  );
}
