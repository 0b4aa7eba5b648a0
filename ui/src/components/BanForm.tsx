import { useId, useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { errorText } from '../api';
import { useMe } from '../queries';
import { Modal } from './ConfirmDialog';

// The lengths a ban is usually given, and the explicit "permanent", are
// the server's (GET /auth/me banPresets); then a date of the operator's
// choosing. The form has no default, so a ban is never permanent because
// a date was left empty.
const custom = { key: 'custom', label: 'Until a date…', seconds: 0 };

// timeZone is the operator's time zone as the browser names it
// ("Europe/Berlin"), which a custom end is read in.
const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';

// BanBody is what every ban endpoint takes.
export interface BanBody {
  reason?: string;
  until: string | null;
}

// BanForm is the one ban form, on the user page, in the command palette
// and for a selection of users: a reason, and how long (a choice, never
// implied). onSubmit sends it (POST /users/{id}/ban or
// /users/_bulk/ban); a failure is shown in the form.
export function BanForm<T>({ name, onSubmit, onCancel, onDone, cancelLabel = 'Cancel' }: {
  name: string;
  onSubmit: (body: BanBody) => Promise<T>;
  onCancel: () => void;
  onDone: (r: T) => void;
  cancelLabel?: string;
}) {
  const id = useId();
  const [reason, setReason] = useState('');
  const durations = [...(useMe().data?.banPresets ?? []), custom];
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
    if (!d) return setProblem('Choose how long the ban lasts.');
    let end: string | null = null;
    if (d.key === 'custom') {
      const t = until ? new Date(until) : null;
      if (!t || Number.isNaN(t.getTime())) return setProblem('Pick the date and time the ban ends.');
      if (t.getTime() <= Date.now()) return setProblem('The end is in the past: pick a later date.');
      end = t.toISOString();
    } else if (d.seconds > 0) {
      end = new Date(Date.now() + d.seconds * 1000).toISOString();
    }
    setProblem('');
    ban.mutate(end);
  };
  return (
    <form className="stack ban-form" onSubmit={submit} noValidate>
      <label>
        Reason <span className="muted">(optional, at most 500 characters; the player is told)</span>
        <textarea name="reason" maxLength={500} autoFocus value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      <fieldset className="choices" aria-describedby={problem ? id + '-problem' : undefined}>
        <legend>How long</legend>
        {durations.map((d) => (
          <label key={d.key} className="choice">
            <input type="radio" name="duration" value={d.key} checked={duration === d.key} onChange={() => { setDuration(d.key); setProblem(''); }} />
            {d.label}
          </label>
        ))}
      </fieldset>
      {duration === 'custom' && (
        <label>
          Ends at <span className="muted">(your time: {timeZone})</span>
          <input type="datetime-local" name="until" step="60" value={until} onChange={(e) => setUntil(e.target.value)} />
        </label>
      )}
      {(problem || ban.isError) && (
        <p className="form-error" role="alert" id={id + '-problem'}>{problem || errorText(ban.error)}</p>
      )}
      <div className="dialog-buttons">
        <button type="button" onClick={onCancel}>{cancelLabel}</button>
        <button type="submit" className="danger" disabled={ban.isPending || ban.isSuccess}>Ban {name}</button>
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
  return (
    <Modal title={`Ban ${name}`} onClose={onClose}>
      <BanForm name={name} onSubmit={onSubmit} onCancel={onClose} onDone={onDone} />
    </Modal>
  );
}
