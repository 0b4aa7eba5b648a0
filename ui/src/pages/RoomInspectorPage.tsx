import { useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { Lock } from 'lucide-react';
import { toast } from 'sonner';
import { useTranslation } from 'react-i18next';
import { client, errorText, dataOf, pageOf, query, seg } from '../api';
import { useUsersMeta } from '../queries';
import { Modal, useConfirm } from '../components/ConfirmDialog';
import { Time } from '../time';
import { ErrorNote, Loading } from '../components/Status';
import { usePageTitle } from '../names';
import { parseJSON, stringifyJSON } from '../json';
import { jsonErrorPlace } from '../jsonWords';
import i18n, { formatNumber } from '../i18n';
import { useMediaQuery } from '../theme';
import { phoneQuery } from '../components/DataCards';

export function RoomInspectorPage() {
  const { t } = useTranslation('rooms');
  const { roomId = '' } = useParams();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [dialog, ask] = useConfirm();
  const room = { params: { path: { roomId } } };
  const q = useQuery({ queryKey: ['rooms', 'room', roomId], queryFn: () => dataOf(client.GET('/rooms/{roomId}', room)), refetchInterval: 2500 });
  usePageTitle(t('{{room}} · Live rooms', { room: q.data?.name || roomId }));
  const names = useUserNames(q.data?.clientList.map((c) => c.userId) ?? []);
  // Each session's player, for the state (keyed by session id) and its
  // editor's client picker.
  const players = new Map<string, string>();
  for (const c of q.data?.clientList ?? []) players.set(c.sessionId, names.get(c.userId) ?? t('a player'));
  for (const [id, name] of names) players.set(id, name);

  const act = async (run: () => Promise<unknown>, done: string) => {
    try {
      await run();
      toast.success(done);
    } catch (err) {
      toast.error(errorText(err));
    }
    await qc.invalidateQueries({ queryKey: ['rooms'] });
  };
  const [kicking, setKicking] = useState<{ sessionId: string; name: string } | null>(null);
  const kick = async (sessionId: string, who: string, reason: string) => {
    setKicking(null);
    await act(() => client.DELETE('/rooms/{roomId}/clients/{sessionId}', { params: { path: { roomId, sessionId } }, body: reason ? { reason } : {} }), t('{{who}} kicked from {{room}}', { who, room: q.data?.name || roomId }));
  };
  const dispose = async () => {
    if (!(await ask({ title: t('Dispose this room?'), description: t('Every client is disconnected and the room ends.'), confirmLabel: t('Dispose'), danger: true }))) return;
    try {
      await client.DELETE('/rooms/{roomId}', room);
      toast.success(t('Room disposed'));
      await qc.invalidateQueries({ queryKey: ['rooms'] });
      navigate('/rooms');
    } catch (err) {
      toast.error(errorText(err));
    }
  };

  return (
    <section>
      <div className="page-title">
        <h1>
          <Link to="/rooms">{t('Live rooms')}</Link> / {q.data?.name || roomId}
          {q.data?.name && <span className="muted mono id-note room-id" title={t('Room id')}> {roomId}</span>}
          {q.data?.locked && (
            <span className="badge badge-locked">
              <Lock size={12} aria-hidden="true" /> {t('locked')}
            </span>
          )}
        </h1>
        {q.data && (
          <div className="toolbar">
            <button type="button" onClick={() => void act(() => client.PATCH('/rooms/{roomId}', { ...room, body: { locked: !q.data.locked } }), q.data.locked ? t('Room unlocked') : t('Room locked'))}>
              {q.data.locked ? t('Unlock') : t('Lock')}
            </button>
            <button type="button" className="danger" onClick={() => void dispose()}>{t('Dispose')}</button>
          </div>
        )}
      </div>
      {q.isPending ? (
        <Loading />
      ) : q.isError ? (
        <ErrorNote error={q.error} />
      ) : (
        <>
          <dl className="fields">
            {q.data.node && <div className="field"><dt>{t('Node')}</dt><dd className="mono">{q.data.node}</dd></div>}
            <div className="field"><dt>{t('Clients')}</dt><dd>{formatNumber(q.data.clients)} / {formatNumber(q.data.maxClients)}</dd></div>
            <div className="field"><dt>{t('Locked')}</dt><dd>{q.data.locked ? t('yes') : t('no')}</dd></div>
            <div className="field"><dt>{t('Created')}</dt><dd><Time value={q.data.createdAt} /></dd></div>
            <div className="field"><dt>{t('Metadata')}</dt><dd><pre className="json-block meta-block" role="region" tabIndex={0} aria-label={t('Metadata')}>{stringifyJSON(q.data.metadata ?? null, 2)}</pre></dd></div>
            <div className="field"><dt>{t('Room id')}</dt><dd className="mono muted">{roomId}</dd></div>
          </dl>
          <h2>{t('Clients')}</h2>
          {q.data.clientList.length === 0 ? (
            <p className="muted">{t('No clients.')}</p>
          ) : (
            <ClientTable clients={q.data.clientList} names={names} onKick={setKicking} />
          )}
          <h2 id="room-state">{t('State')}</h2>
          <div className="state-grid">
            <StateView state={q.data.state ?? null} players={players} />
            <StateEditor roomId={roomId} state={q.data.state} clients={q.data.clientList.map((c) => ({ sessionId: c.sessionId, name: players.get(c.sessionId) ?? c.sessionId }))}
              onDone={() => void qc.invalidateQueries({ queryKey: ['rooms', 'room', roomId] })} />
          </div>
        </>
      )}
      {dialog}
      {kicking && <KickDialog who={kicking.name} room={q.data?.name || roomId} onCancel={() => setKicking(null)} onKick={(reason) => void kick(kicking.sessionId, kicking.name, reason)} />}
    </section>
  );
}

type Client = { sessionId: string; userId: string; joinedAt: string };

// ClientTable lists the room's clients, Kick first: the first column
// stays in view, so a phone reaches Kick without scrolling sideways. On a
// phone the player's joining time and session stand under their name
// (wrapped, nothing off to the right); wider, each has its column.
function ClientTable({ clients, names, onKick }: { clients: Client[]; names: Map<string, string>; onKick: (k: { sessionId: string; name: string }) => void }) {
  const { t } = useTranslation('rooms');
  const phone = useMediaQuery(phoneQuery);
  return (
    <div className="table-wrap">
      <table className={phone ? 'data-table client-table wrap' : 'data-table client-table'} aria-label={t('Clients')}>
        <thead>
          <tr><th><span className="sr-only">{t('Action')}</span></th><th>{t('Player')}</th>{!phone && <><th>{t('Joined')}</th><th>{t('Session')}</th></>}</tr>
        </thead>
        <tbody>
          {clients.map((c) => {
            const name = names.get(c.userId) ?? c.userId;
            const player = <Link to={'/users/' + seg(c.userId)} title={c.userId}>{name}</Link>;
            return (
              <tr key={c.sessionId}>
                <td><button type="button" className="danger" aria-label={t('Kick {{name}}', { name })} onClick={() => onKick({ sessionId: c.sessionId, name })}>{t('Kick')}</button></td>
                {phone ? (
                  <td className="client-cell">
                    {player}
                    <dl className="kv client-facts">
                      <div><dt>{t('Joined')}</dt><dd><Time value={c.joinedAt} /></dd></div>
                      <div><dt>{t('Session')}</dt><dd className="mono id-note">{c.sessionId}</dd></div>
                    </dl>
                  </td>
                ) : (
                  <>
                    <td>{player}</td>
                    <td><Time value={c.joinedAt} /></td>
                    <td className="mono muted id-note">{c.sessionId}</td>
                  </>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

// KickDialog confirms a kick, naming the player, with an optional reason
// that the player's client is sent and the audit log keeps.
function KickDialog({ who, room, onCancel, onKick }: { who: string; room: string; onCancel: () => void; onKick: (reason: string) => void }) {
  const { t } = useTranslation('rooms');
  const [reason, setReason] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onKick(reason.trim());
  };
  return (
    <Modal title={t('Kick {{who}}?', { who })} description={t('{{who}} is disconnected from {{room}}. They can join again unless banned.', { who, room })} onClose={onCancel}>
      <form onSubmit={submit} className="stack">
        <label>
          {t('Reason')} <span className="muted">{t('(optional; sent to the player and kept in the audit log)')}</span>
          <input name="reason" maxLength={500} autoFocus value={reason} onChange={(e) => setReason(e.target.value)} />
        </label>
        <div className="dialog-buttons">
          <button type="button" onClick={onCancel}>{t('Cancel')}</button>
          <button type="submit" className="danger">{t('Kick')}</button>
        </div>
      </form>
    </Modal>
  );
}

// useUserNames maps the clients' user ids to display names (or emails)
// with one list request, when the operator may list users.
function useUserNames(ids: string[]): Map<string, string> {
  const users = useUsersMeta();
  const key = [...new Set(ids)].sort();
  const q = useQuery({
    queryKey: ['list', 'users', 'names', key.join(',')],
    queryFn: () => pageOf(client.GET('/{resource}', { params: { path: { resource: users?.name ?? '' } }, querySerializer: query(new URLSearchParams({ id_in: key.join(','), _start: '0', _end: String(key.length) })) })),
    enabled: key.length > 0 && users?.permissions.list === true,
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  });
  const names = new Map<string, string>();
  for (const r of q.data?.rows ?? []) {
    const name = [r.display_name, r.email].find((v) => typeof v === 'string' && v !== '');
    if (typeof r.id === 'string' && typeof name === 'string') names.set(r.id, name);
  }
  return names;
}

// parsePath reads a state path: a JSON array (["players", "abc", "x"]) or
// dot-separated keys, where all-digit segments are array indexes.
export function parsePath(s: string): (string | number)[] {
  const t = s.trim();
  if (t.startsWith('[')) {
    let v: unknown;
    try {
      v = parseJSON(t);
    } catch (err) {
      const place = jsonErrorPlace(err, t);
      throw new Error(place
        ? i18n.t('The path is not valid JSON: line {{line, number}}, column {{column, number}}.', { ns: 'rooms', line: place.line, column: place.column })
        : i18n.t('The path is not valid JSON.', { ns: 'rooms' }));
    }
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' || typeof x === 'number')) throw new Error(i18n.t('The path must be an array of keys and indexes.', { ns: 'rooms' }));
    return v as (string | number)[];
  }
  if (t === '') throw new Error(i18n.t('Enter a path.', { ns: 'rooms' }));
  return t.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

// StateView is the room's state as JSON, each session key and user id
// followed by the player's name: the state is keyed by what the game
// knows, the operator reads who.
function StateView({ state, players }: { state: unknown; players: Map<string, string> }) {
  const lines = (stringifyJSON(state, 2) ?? 'null').split('\n');
  return (
    // A region of its own, reached by Tab (it scrolls when the state is
    // long), its focus ring drawn inside the box.
    <pre className="json-block state" role="region" aria-labelledby="room-state" tabIndex={0}>
      {lines.map((line, i) => {
        const m = /"([^"\\]+)"/g;
        let who: string | undefined;
        for (let r = m.exec(line); r && !who; r = m.exec(line)) who = players.get(r[1] ?? '');
        return (
          <span key={i}>
            {line}
            {who && <span className="state-who"> {'// '}{who}</span>}
            {'\n'}
          </span>
        );
      })}
    </pre>
  );
}

// sessionPath is where a session's key is in the state (["players",
// "<session id>"]), or undefined.
export function sessionPath(state: unknown, sessionId: string, depth = 0): string[] | undefined {
  if (state === null || typeof state !== 'object' || Array.isArray(state) || depth > 4) return undefined;
  const o = state as Record<string, unknown>;
  if (Object.prototype.hasOwnProperty.call(o, sessionId)) return [sessionId];
  for (const [k, v] of Object.entries(o)) {
    const p = sessionPath(v, sessionId, depth + 1);
    if (p) return [k, ...p];
  }
  return undefined;
}

function StateEditor({ roomId, state, clients, onDone }: { roomId: string; state: unknown; clients: { sessionId: string; name: string }[]; onDone: () => void }) {
  const { t } = useTranslation('rooms');
  const [statePath, setStatePath] = useState('');
  // Choosing a player starts the path at their session's entry.
  const pick = (sessionId: string) => {
    if (!sessionId) return;
    const at = sessionPath(state, sessionId) ?? ['players', sessionId];
    setStatePath(at.join('.') + '.');
  };
  const [value, setValue] = useState('');
  const [error, setError] = useState('');
  const run = async (kind: 'set' | 'delete') => {
    setError('');
    try {
      const p = parsePath(statePath);
      if (kind === 'set') {
        let v: unknown;
        try {
          v = parseJSON(value);
        } catch (err) {
          const place = jsonErrorPlace(err, value);
          throw new Error(place ? t('The value is not valid JSON: line {{line, number}}, column {{column, number}}.', place) : t('The value is not valid JSON.'));
        }
        await client.PATCH('/rooms/{roomId}/state', { params: { path: { roomId } }, body: { path: p, value: v } });
        toast.success(t('State updated'));
      } else {
        await client.DELETE('/rooms/{roomId}/state', { params: { path: { roomId } }, body: { path: p } });
        toast.success(t('State path deleted'));
      }
      onDone();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form className="stack state-editor" onSubmit={(e: FormEvent) => { e.preventDefault(); void run('set'); }}>
      {clients.length > 0 && (
        <label>
          {t('Player')} <span className="muted">{t('(starts the path at their session)')}</span>
          <select value="" onChange={(e) => pick(e.target.value)}>
            <option value="">{t('Choose a player…')}</option>
            {[...clients].sort((a, b) => a.name.localeCompare(b.name, i18n.language)).map((c) => <option key={c.sessionId} value={c.sessionId}>{c.name}</option>)}
          </select>
        </label>
      )}
      <label>
        {t('Path')} <span className="muted">{t('(coinGoal, players.<session>.score or a JSON array)')}</span>
        <input className="mono" value={statePath} onChange={(e) => setStatePath(e.target.value)} />
      </label>
      <label>
        {t('Value (JSON)')}
        <textarea className="mono" rows={4} value={value} onChange={(e) => setValue(e.target.value)} />
      </label>
      {error && <p className="form-error" role="alert">{error}</p>}
      <div className="toolbar">
        <button type="submit" className="primary">{t('Set value')}</button>
        <button type="button" className="danger" onClick={() => void run('delete')}>{t('Delete path')}</button>
      </div>
    </form>
  );
}
