import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { toast } from 'sonner';
import { api, errorText, seg, type Row, type UserSession } from '../api';
import { Modal } from '../components/ConfirmDialog';
import { compactJSON, formatDateTime } from '../components/CellValue';
import { ErrorNote, Loading } from '../components/Status';

interface ModerationResult {
  ok: boolean;
  sessionsClosed?: number;
}

// UserModeration is the users detail page's Ban, Unban and Revoke sessions.
export function UserModeration({ id, row }: { id: string; row: Row }) {
  const qc = useQueryClient();
  const [banning, setBanning] = useState(false);
  const base = `/users/${seg(id)}`;
  const refresh = () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: ['row', 'users', id] }),
      qc.invalidateQueries({ queryKey: ['counts', 'users', id] }),
      qc.invalidateQueries({ queryKey: ['list', 'users'] }),
    ]);
  const run = async (op: 'unban' | 'revoke-sessions', done: string) => {
    try {
      const r = await api.post<ModerationResult>(`${base}/${op}`);
      toast.success(r.sessionsClosed !== undefined ? `${done}; sessions closed: ${r.sessionsClosed}` : done);
    } catch (err) {
      toast.error(errorText(err));
    }
    await refresh();
  };
  const banned = row.ban !== null && row.ban !== undefined;
  return (
    <div className="moderation">
      <h2>Moderation</h2>
      <p>{banned ? <>Banned: <code>{compactJSON(row.ban, 200)}</code></> : 'Not banned.'}</p>
      <div className="toolbar">
        <button type="button" className="danger" onClick={() => setBanning(true)}>Ban</button>
        {banned && <button type="button" onClick={() => void run('unban', 'Unbanned')}>Unban</button>}
        <button type="button" onClick={() => void run('revoke-sessions', 'Sessions revoked')}>Revoke sessions</button>
      </div>
      {banning && (
        <BanDialog
          path={base + '/ban'}
          onClose={() => setBanning(false)}
          onDone={(r) => {
            setBanning(false);
            toast.success(`Banned; sessions closed: ${r.sessionsClosed ?? 0}`);
            void refresh();
          }}
        />
      )}
    </div>
  );
}

function BanDialog({ path, onClose, onDone }: { path: string; onClose: () => void; onDone: (r: ModerationResult) => void }) {
  const [reason, setReason] = useState('');
  const [until, setUntil] = useState('');
  const ban = useMutation({
    mutationFn: () => {
      const body: { reason?: string; until?: string } = {};
      if (reason.trim()) body.reason = reason.trim();
      if (until) body.until = new Date(until).toISOString();
      return api.post<ModerationResult>(path, body);
    },
    onSuccess: onDone,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    ban.mutate();
  };
  return (
    <Modal title="Ban user" onClose={onClose}>
      <form className="stack" onSubmit={submit}>
        <label>
          Reason <span className="muted">(optional, at most 500 characters)</span>
          <textarea name="reason" maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
        </label>
        <label>
          Until <span className="muted">(optional; empty bans for good)</span>
          <input type="datetime-local" name="until" step="1" value={until} onChange={(e) => setUntil(e.target.value)} />
        </label>
        {ban.isError && <p className="form-error" role="alert">{errorText(ban.error)}</p>}
        <div className="dialog-buttons">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="danger" disabled={ban.isPending || ban.isSuccess}>Ban</button>
        </div>
      </form>
    </Modal>
  );
}

// ActiveSessions lists the live rooms a user is in.
export function ActiveSessions({ userId }: { userId: string }) {
  const q = useQuery({
    queryKey: ['rooms', 'by-user', userId],
    queryFn: () => api.get<UserSession[]>(`/rooms/by-user/${seg(userId)}`),
    refetchInterval: 3000,
  });
  if (q.isPending) return <Loading />;
  if (q.isError) return <ErrorNote error={q.error} />;
  if (q.data.length === 0) return <p className="muted">No active sessions.</p>;
  const keys = Array.from(new Set(q.data.flatMap((s) => Object.keys(s))));
  return (
    <div className="table-wrap">
      <table className="data-table">
        <thead>
          <tr>{keys.map((k) => <th key={k}>{k}</th>)}</tr>
        </thead>
        <tbody>
          {q.data.map((s, i) => (
            <tr key={i}>
              {keys.map((k) => (
                <td key={k}>
                  {k === 'roomId' ? (
                    <Link to={'/rooms/' + seg(String(s.roomId))}>{String(s.roomId)}</Link>
                  ) : /At$/.test(k) ? (
                    formatDateTime(s[k])
                  ) : typeof s[k] === 'object' ? (
                    compactJSON(s[k])
                  ) : (
                    String(s[k] ?? '')
                  )}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
