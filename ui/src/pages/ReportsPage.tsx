import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { toast } from 'sonner';
import { ApiError, client, errorText, dataOf, seg, type BanPreset, type Ok } from '../api';
import { useCatalog, useMe, useUsersMeta } from '../queries';
import { singular, usePageTitle } from '../names';
import { formatTime, Time } from '../time';
import { ErrorNote, Loading } from '../components/Status';
import { Modal } from '../components/ConfirmDialog';
import { BanForm, type BanBody } from '../components/BanForm';
import { phoneQuery } from '../components/DataCards';
import { useMediaQuery } from '../theme';
import { name, useReportsQueue, type Claim, type Report, type ReportedPlayer, type UserRef, type PlayerReports as PlayerReportsAnswer } from '../reports';

// ReportsPage is the queue: one row (a card on a phone) per reported
// player, in the server's order (the most reported in the last 24 hours
// first), with a claim and a one-step resolution.
export function ReportsPage() {
  usePageTitle('Reports');
  const [params, setParams] = useSearchParams();
  const qs = new URLSearchParams([...params].filter(([k, v]) => ['category', 'status', 'room'].includes(k) && v !== '')).toString();
  const q = useReportsQueue(qs);
  const all = useReportsQueue('');
  const categories = q.data?.categories ?? all.data?.categories ?? [];
  const phone = useMediaQuery(phoneQuery);
  const status = params.get('status') ?? 'open';
  const set = (k: string, v: string) =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      if (v) next.set(k, v);
      else next.delete(k);
      return next;
    }, { replace: true });
  const [room, setRoom] = useState(params.get('room') ?? '');
  const listRef = useRef<HTMLDivElement>(null);
  useListKeys(listRef);
  return (
    <section>
      <div className="page-title">
        <h1>Reports</h1>
        <span className="muted">Players reported by other players, the most reported in the last 24 hours first</span>
      </div>
      <form className="reports-filters" role="search" aria-label="Filter the reports" onSubmit={(e: FormEvent) => { e.preventDefault(); set('room', room.trim()); }}>
        <label>
          Category
          <select value={params.get('category') ?? ''} onChange={(e) => set('category', e.target.value)}>
            <option value="">Every category</option>
            {categories.map((c) => <option key={c.key} value={c.key}>{c.label}</option>)}
          </select>
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => set('status', e.target.value === 'open' ? '' : e.target.value)}>
            <option value="open">Open</option>
            <option value="resolved">Resolved</option>
          </select>
        </label>
        <label>
          Room
          <input type="search" value={room} placeholder="Room id" onChange={(e) => setRoom(e.target.value)} onBlur={() => set('room', room.trim())} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <div ref={listRef} data-list>
        {q.isPending ? (
          <Loading />
        ) : q.isError ? (
          <ErrorNote error={q.error} />
        ) : q.data.players.length === 0 ? (
          <p className="muted data-cards-empty" style={{ padding: 12 }}>{status === 'open' ? 'No open reports.' : 'No resolved reports.'}</p>
        ) : phone ? (
          <ul className="data-cards" aria-label="Reported players">
            {q.data.players.map((p) => (
              <li key={p.player.id} className="data-card" data-report-row>
                <div className="card-head">
                  <span className="card-title"><PlayerLink user={p.player} /></span>
                </div>
                <dl className="card-fields">
                  <div><dt>Reports</dt><dd><Counts p={p} /></dd></div>
                  <div><dt>Categories</dt><dd>{categoryWords(p)}</dd></div>
                  <div><dt>First report</dt><dd><Time value={p.firstAt} /></dd></div>
                  <div><dt>Last report</dt><dd><Time value={p.lastAt} /></dd></div>
                  <div className="wide"><dt>Reported by</dt><dd><Names users={p.reporters} /></dd></div>
                </dl>
                <PlayerActions player={p.player} claim={p.claim} open={status === 'open'} details />
              </li>
            ))}
          </ul>
        ) : (
          <div className="table-wrap">
            <table className="data-table reports-table" aria-label="Reported players">
              <thead>
                <tr><th>Player</th><th>Reports</th><th>Categories</th><th>First report</th><th>Last report</th><th>Reported by</th><th>Claim and resolve</th></tr>
              </thead>
              <tbody>
                {q.data.players.map((p) => (
                  <tr key={p.player.id} data-report-row>
                    <td><PlayerLink user={p.player} /></td>
                    <td><Counts p={p} /></td>
                    <td>{categoryWords(p)}</td>
                    <td><Time value={p.firstAt} /></td>
                    <td><Time value={p.lastAt} /></td>
                    <td><Names users={p.reporters} /></td>
                    <td><PlayerActions player={p.player} claim={p.claim} open={status === 'open'} details /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {q.data?.hasMore && <p className="muted">More players have reports: narrow the filter to see them.</p>}
      </div>
      <p className="muted">Keys: j and k move between players, Enter opens their reports.</p>
    </section>
  );
}

// useListKeys moves between the queue's players with j and k: focus goes
// to the player's "Reports" link, which Enter follows.
function useListKeys(ref: React.RefObject<HTMLDivElement | null>) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'j' && e.key !== 'k') return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const a = document.activeElement as HTMLElement | null;
      if (a && (a.tagName === 'INPUT' || a.tagName === 'TEXTAREA' || a.tagName === 'SELECT' || a.isContentEditable)) return;
      if (document.querySelector('[role=dialog]')) return;
      const rows = [...(ref.current?.querySelectorAll<HTMLElement>('[data-report-row]') ?? [])];
      if (rows.length === 0) return;
      const at = rows.findIndex((r) => r.contains(a));
      const next = at < 0 ? 0 : Math.max(0, Math.min(rows.length - 1, at + (e.key === 'j' ? 1 : -1)));
      rows[next]?.querySelector<HTMLElement>('a.report-details')?.focus();
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [ref]);
}

function Counts({ p }: { p: ReportedPlayer }) {
  return (
    <span>
      <strong>{p.last24h.toLocaleString()}</strong> in 24 h
      <span className="muted"> · {p.count.toLocaleString()} in all</span>
    </span>
  );
}

const categoryWords = (p: ReportedPlayer) => p.categories.map((c) => (c.count > 1 ? `${c.label} (${c.count})` : c.label)).join(', ');

// PlayerLink is a player by name, linked to their page; the id on hover.
function PlayerLink({ user }: { user: UserRef }) {
  return <Link to={'/users/' + seg(user.id)} title={user.id}>{name(user)}</Link>;
}

// OperatorName is who claimed or resolved: "you", their label (linked),
// else "another operator" (one whose row the viewer may not read, or
// without a display name).
function OperatorName({ user }: { user: UserRef | undefined }) {
  const me = useMe();
  if (user && user.id === me.data?.userId) return <>you</>;
  if (!user?.label) return <span title={user?.id}>another operator</span>;
  return <PlayerLink user={user} />;
}

function Names({ users }: { users: UserRef[] }) {
  return (
    <>
      {users.map((u, i) => (
        <span key={u.id}>
          {i > 0 && ', '}
          <PlayerLink user={u} />
        </span>
      ))}
    </>
  );
}

// refreshAfter is what a claim or a resolution changes: the queue, the
// player's reports and page, the dashboard, the rooms (a kick or a ban
// closes sessions).
function useRefresh() {
  const qc = useQueryClient();
  return (playerId: string) =>
    Promise.all([
      qc.invalidateQueries({ queryKey: ['reports'] }),
      qc.invalidateQueries({ queryKey: ['dashboard'] }),
      qc.invalidateQueries({ queryKey: ['row', 'users', playerId] }),
      qc.invalidateQueries({ queryKey: ['relation', 'users', playerId] }),
      qc.invalidateQueries({ queryKey: ['history', 'users', playerId] }),
      qc.invalidateQueries({ queryKey: ['counts', 'users', playerId] }),
      qc.invalidateQueries({ queryKey: ['list'] }),
      qc.invalidateQueries({ queryKey: ['rooms'] }),
    ]);
}

// PlayerActions is a reported player's claim and resolution: "Claim" (who
// holds it otherwise, and for an admin "Take over"), "Resolve…".
function PlayerActions({ player, claim, open, details = false }: { player: UserRef; claim: Claim | null; open: boolean; details?: boolean }) {
  const me = useMe();
  const users = useUsersMeta();
  const refresh = useRefresh();
  const [resolving, setResolving] = useState(false);
  const who = name(player);
  const mine = claim?.by.id === me.data?.userId;
  const admin = me.data?.role === 'admin';
  const claimIt = useMutation({
    mutationFn: (takeover: boolean) => dataOf(client.POST('/_reports/{playerId}/claim', { params: { path: { playerId: player.id } }, body: takeover ? { takeover: true } : {} })),
    onSuccess: () => toast.success(`You are working on the reports about ${who}`),
    onError: (err) => toast.error(err instanceof ApiError && err.code === 'claimed' ? `Not claimed: ${err.message}` : errorText(err)),
    onSettled: () => void refresh(player.id),
  });
  const mayAct = open && !!users?.permissions.update;
  return (
    <div className="report-actions">
      {details && <Link className="report-details button" to={'/reports/' + seg(player.id)} aria-label={`Reports about ${who}`}>Reports</Link>}
      {open && (
        <span className="report-claim muted" title={claim && details ? 'since ' + formatTime(claim.at) : undefined}>
          {claim ? (mine ? 'Claimed by you' : <>Claimed by <OperatorName user={claim.by} /></>) : 'Not claimed'}
          {/* The queue's row is narrow: there the time is the title's. */}
          {claim && !details && <> since <Time value={claim.at} /></>}
        </span>
      )}
      {mayAct && !mine && (!claim || admin) && (
        <button type="button" onClick={() => claimIt.mutate(!!claim)} disabled={claimIt.isPending} aria-label={`${claim ? 'Take over' : 'Claim'} the reports about ${who}`}>
          {claim ? 'Take over' : 'Claim'}
        </button>
      )}
      {mayAct && (mine || !claim || admin) && (
        <button type="button" className="primary" onClick={() => setResolving(true)} aria-label={`Resolve the reports about ${who}`}>Resolve…</button>
      )}
      {resolving && <ResolveDialog player={player} onClose={() => setResolving(false)} onDone={() => { setResolving(false); void refresh(player.id); }} />}
    </div>
  );
}

type ResolveResult = Ok<'/_reports/{playerId}/resolve', 'post'>;

const outcomes = [
  { key: 'dismiss', label: 'Dismiss', hint: 'nothing wrong: close the reports' },
  { key: 'warn', label: 'Warn', hint: 'a note on the player' },
  { key: 'kick', label: 'Kick', hint: 'end their sessions; they may sign in again' },
  { key: 'ban', label: 'Ban', hint: 'for a time, or for good' },
] as const;
type Outcome = (typeof outcomes)[number]['key'];

const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

// banLength says a ban's end as the form chose it: "for 7 days" for one
// of the server's presets (GET /auth/me banPresets), "for good", else
// "until <when>".
function banLength(until: string | null, presets: BanPreset[]): string {
  if (!until) return 'for good';
  const ms = new Date(until).getTime() - Date.now();
  const p = presets.find((x) => x.seconds > 0 && Math.abs(x.seconds * 1000 - ms) < 5 * 60_000);
  return p ? `for ${p.label.toLowerCase()}` : `until ${new Date(until).toLocaleString()}`;
}

function resolvedWords(who: string, outcome: Outcome, r: ResolveResult, until: string | null | undefined, presets: BanPreset[]): string {
  const closed = plural(r.reports.length, 'report', 'reports') + ' closed';
  const sessions = r.sessionsClosed ? `; ${plural(r.sessionsClosed, 'live session', 'live sessions')} closed` : '';
  switch (outcome) {
    case 'dismiss': return `Reports about ${who} dismissed; ${closed}`;
    case 'warn': return `${who} warned; ${closed}`;
    case 'kick': return `${who} kicked${sessions}; ${closed}`;
    case 'ban': return `${who} banned ${banLength(until ?? null, presets)}${sessions}; ${closed}`;
  }
}

// ResolveDialog closes every open report about the player with one
// outcome; a ban takes its length and reason from the one ban form.
function ResolveDialog({ player, onClose, onDone }: { player: UserRef; onClose: () => void; onDone: () => void }) {
  const id = useId();
  const who = name(player);
  const [outcome, setOutcome] = useState<Outcome | ''>('');
  const [note, setNote] = useState('');
  const [problem, setProblem] = useState('');
  const presets = useMe().data?.banPresets ?? [];
  const path = { params: { path: { playerId: player.id } } };
  const done = (o: Outcome, r: ResolveResult, until?: string | null) => {
    toast.success(resolvedWords(who, o, r, until, presets) + (r.partial ? ' (some live sessions may still be open)' : ''));
    onDone();
  };
  const resolve = useMutation({
    mutationFn: (o: Outcome) => dataOf(client.POST('/_reports/{playerId}/resolve', { ...path, body: { outcome: o, ...(note.trim() ? { note: note.trim() } : {}) } })),
    onSuccess: (r, o) => done(o, r),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!outcome) return setProblem('Choose an outcome.');
    if (outcome === 'warn' && !note.trim()) return setProblem('Write the warning: it becomes a note on the player.');
    setProblem('');
    resolve.mutate(outcome);
  };
  return (
    <Modal title={`Resolve the reports about ${who}`} onClose={onClose} description="Every open report about this player closes with the outcome, in one step.">
      <fieldset className="choices" aria-describedby={problem ? id + '-problem' : undefined}>
        <legend>Outcome</legend>
        {outcomes.map((o) => (
          <label key={o.key} className="choice" title={o.hint}>
            <input type="radio" name="outcome" value={o.key} checked={outcome === o.key} onChange={() => { setOutcome(o.key); setProblem(''); }} />
            {o.label}
          </label>
        ))}
      </fieldset>
      {outcome === 'ban' ? (
        <BanForm
          name={who}
          onSubmit={(b: BanBody) => dataOf(client.POST('/_reports/{playerId}/resolve', { ...path, body: { outcome: 'ban', ...(b.reason ? { note: b.reason } : {}), ban: { until: b.until, ...(b.reason ? { reason: b.reason } : {}) } } })).then((r) => ({ r, until: b.until }))}
          onCancel={onClose}
          onDone={({ r, until }) => done('ban', r, until)}
        />
      ) : (
        <form className="stack" onSubmit={submit} noValidate>
          <label className="resolve-note">
            {outcome === 'warn' ? 'Warning' : 'Note'} <span className="muted">{outcome === 'warn' ? '(required; kept as a note on the player)' : '(optional, kept with the resolution)'}</span>
            <textarea name="note" maxLength={2000} value={note} onChange={(e) => { setNote(e.target.value); setProblem(''); }} />
          </label>
          {(problem || resolve.isError) && <p className="form-error" role="alert" id={id + '-problem'}>{problem || errorText(resolve.error)}</p>}
          <div className="dialog-buttons">
            <button type="button" onClick={onClose}>Cancel</button>
            <button type="submit" className={outcome === 'kick' ? 'danger' : 'primary'} disabled={resolve.isPending || resolve.isSuccess}>Confirm</button>
          </div>
        </form>
      )}
    </Modal>
  );
}

// ReportsPlayerPage is one reported player's reports (/reports/:playerId):
// every report about them with its evidence, the claim and the
// resolution, and the reports they filed.
export function ReportsPlayerPage() {
  const { playerId = '' } = useParams();
  const q = usePlayerReports(playerId);
  const who = q.data ? name(q.data.player) : 'a player';
  usePageTitle(`Reports about ${who}`);
  const open = q.data?.received.some((r) => r.status === 'open') ?? false;
  return (
    <section>
      <p className="muted"><Link to="/reports">Reports</Link> ›</p>
      {q.isPending ? <Loading /> : q.isError ? <ErrorNote error={q.error} /> : (
        <>
          <div className="page-title reports-head">
            <h1>Reports about {who}</h1>
            <Link to={'/users/' + seg(playerId)}>{who}'s page</Link>
          </div>
          <PlayerActions player={q.data.player} claim={q.data.claim} open={open} />
          <ReportsOf data={q.data} level={2} />
        </>
      )}
    </section>
  );
}

function usePlayerReports(playerId: string) {
  return useQuery({
    queryKey: ['reports', 'player', playerId],
    queryFn: () => dataOf(client.GET('/_reports', { params: { query: { player: playerId } } })).then((r) => r as PlayerReportsAnswer),
    enabled: playerId !== '',
  });
}

// PlayerReports is the user page's Reports tab: the reports about the
// player and those they filed.
export function PlayerReports({ playerId }: { playerId: string }) {
  const q = usePlayerReports(playerId);
  if (q.isPending) return <Loading />;
  if (q.isError) return <ErrorNote error={q.error} />;
  const open = q.data.received.filter((r) => r.status === 'open').length;
  return (
    <>
      {open > 0 && (
        <p>
          <Link to={'/reports/' + seg(playerId)}>{plural(open, 'open report', 'open reports')} about {name(q.data.player)} in the queue</Link>
        </p>
      )}
      <ReportsOf data={q.data} level={3} />
    </>
  );
}

function ReportsOf({ data, level }: { data: PlayerReportsAnswer; level: 2 | 3 }) {
  const H = level === 2 ? 'h2' : 'h3';
  return (
    <>
      <H>Received ({data.received.length})</H>
      {data.received.length === 0 ? <p className="muted">No one reported this player.</p> : <ReportList reports={data.received} show="reporter" />}
      <H>Filed ({data.filed.length})</H>
      {data.filed.length === 0 ? <p className="muted">This player filed no report.</p> : <ReportList reports={data.filed} show="player" />}
    </>
  );
}

const outcomeWords: Record<string, string> = { dismiss: 'dismissed', warn: 'warned', kick: 'kicked', ban: 'banned', erase: 'closed by an erase' };

// ReportList says each report: who filed it (or about whom), the
// category, the text, when, the room, the evidence as its category
// declares it, and how it was resolved.
function ReportList({ reports, show }: { reports: Report[]; show: 'reporter' | 'player' }) {
  return (
    <ul className="report-list">
      {reports.map((r) => {
        const other = show === 'reporter' ? r.reporter : r.player;
        return (
          <li key={String(r.id)} className="report-item">
            <div className="report-head">
              <strong>{r.categoryLabel}</strong>
              <span>{show === 'reporter' ? 'by ' : 'about '}{other ? <PlayerLink user={other} /> : 'the game'}</span>
              <Time value={r.createdAt} className="muted" />
              {r.count > 1 && <span className="muted">filed {r.count} times, last <Time value={r.lastAt} /></span>}
              <span className={'badge' + (r.status === 'open' ? ' badge-locked' : '')}>{r.status === 'open' ? 'Open' : 'Resolved'}</span>
            </div>
            {r.text && <p className="report-text">{r.text}</p>}
            {r.evidence && <EvidenceView evidence={r.evidence} />}
            {(r.room || r.resolvedAt) && (
              <p className="report-meta">
                {r.room && <RoomWords room={r.room} />}
                {r.resolvedAt && (
                  <span className="muted">
                    {r.outcome ? outcomeWords[r.outcome] ?? r.outcome : 'resolved'} by <OperatorName user={r.resolvedBy} />, <Time value={r.resolvedAt} />
                  </span>
                )}
              </p>
            )}
          </li>
        );
      })}
    </ul>
  );
}

// RoomWords is the room a report was filed in: linked while it is live
// (and the reported session with it while it is still there), "ended"
// once it is gone.
function RoomWords({ room }: { room: NonNullable<Report['room']> }) {
  const to = '/rooms/' + seg(room.id);
  if (!room.live) return <span>Room <span className="mono">{room.id}</span> <span className="muted">(ended)</span></span>;
  return (
    <span>
      Room <Link to={to}>{room.id}</Link>
      {room.sessionLive && room.sessionId ? <> · <Link to={to} title={room.sessionId}>the player's session is still there</Link></> : <span className="muted"> (the player left)</span>}
    </span>
  );
}

// EvidenceView shows evidence as its category declares it: a chat line
// as text, a row as a link with its label; anything else is named, never
// printed as JSON.
function EvidenceView({ evidence }: { evidence: NonNullable<Report['evidence']> }): ReactNode {
  const catalog = useCatalog();
  if (evidence.kind === 'text') return <blockquote className="report-evidence">{evidence.text}</blockquote>;
  if (evidence.kind === 'row') {
    const meta = catalog.data?.find((m) => m.name === evidence.resource);
    const label = evidence.label || `${meta ? singular(meta.label) : 'Row'} ${evidence.id}`;
    return (
      <p className="report-evidence">
        Evidence: {meta?.permissions.read ? <Link to={`/${seg(evidence.resource)}/${seg(evidence.id)}`}>{label}</Link> : label}
      </p>
    );
  }
  return <p className="report-evidence muted">Evidence attached in a form this category does not declare.</p>;
}
