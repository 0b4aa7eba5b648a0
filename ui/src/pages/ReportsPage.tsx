import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { toast } from 'sonner';
import { Trans, useTranslation } from 'react-i18next';
import { ApiError, client, errorText, dataOf, seg, type BanPreset, type Ok } from '../api';
import { formatNumber } from '../i18n';
import { useCatalog, useMe, useUsersMeta } from '../queries';
import { singular, usePageTitle } from '../names';
import { formatTime, Time } from '../time';
import { ErrorNote, Loading } from '../components/Status';
import { Modal, useConfirm } from '../components/ConfirmDialog';
import { BanForm, durationWords, type BanBody } from '../components/BanForm';
import { phoneQuery } from '../components/DataCards';
import { useMediaQuery } from '../theme';
import { name, pollEvery, useReportsQueue, type Claim, type Report, type ReportedPlayer, type UserRef, type PlayerReports as PlayerReportsAnswer } from '../reports';

// ReportsPage is the queue: one row (a card on a phone) per reported
// player, in the server's order (the most reported in the last 24 hours
// first), with a claim and a one-step resolution.
export function ReportsPage() {
  const { t } = useTranslation('reports');
  usePageTitle(t('Reports'));
  const [params, setParams] = useSearchParams();
  const qs = new URLSearchParams([...params].filter(([k, v]) => ['category', 'status', 'room'].includes(k) && v !== '')).toString();
  // The screen reads the queue again while it is open: other moderators
  // claim and resolve meanwhile.
  const q = useReportsQueue(qs, true, true);
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
        <h1>{t('Reports')}</h1>
        <span className="muted">{t('Players reported by other players, the most reported in the last 24 hours first')}</span>
      </div>
      <form className="reports-filters" role="search" aria-label={t('Filter the reports')} onSubmit={(e: FormEvent) => { e.preventDefault(); set('room', room.trim()); }}>
        <label>
          {t('Category')}
          <select value={params.get('category') ?? ''} onChange={(e) => set('category', e.target.value)}>
            <option value="">{t('Every category')}</option>
            {categories.map((c) => <option key={c.key} value={c.key}>{c.label}</option>)}
          </select>
        </label>
        <label>
          {t('Status')}
          <select value={status} onChange={(e) => set('status', e.target.value === 'open' ? '' : e.target.value)}>
            <option value="open">{t('Open')}</option>
            <option value="resolved">{t('Resolved')}</option>
          </select>
        </label>
        <label>
          {t('Room')}
          <input type="search" value={room} placeholder={t('Room id')} onChange={(e) => setRoom(e.target.value)} onBlur={() => set('room', room.trim())} />
        </label>
        <button type="submit">{t('Filter')}</button>
      </form>
      <div ref={listRef} data-list>
        {q.isPending ? (
          <Loading />
        ) : q.isError ? (
          <ErrorNote error={q.error} />
        ) : q.data.players.length === 0 ? (
          <p className="muted data-cards-empty" style={{ padding: 12 }}>{status === 'open' ? t('No open reports.') : t('No resolved reports.')}</p>
        ) : phone ? (
          <ul className="data-cards" aria-label={t('Reported players')}>
            {q.data.players.map((p) => (
              <li key={p.player.id} className="data-card" data-report-row>
                <div className="card-head">
                  <span className="card-title"><PlayerLink user={p.player} /></span>
                </div>
                <dl className="card-fields">
                  <div><dt>{t('Reports')}</dt><dd><Counts p={p} /></dd></div>
                  <div><dt>{t('Categories')}</dt><dd>{categoryWords(p)}</dd></div>
                  <div><dt>{t('First report')}</dt><dd><Time value={p.firstAt} /></dd></div>
                  <div><dt>{t('Last report')}</dt><dd><Time value={p.lastAt} /></dd></div>
                  <div className="wide"><dt>{t('Reported by')}</dt><dd><Names users={p.reporters} /></dd></div>
                </dl>
                <PlayerActions player={p.player} claim={p.claim} open={status === 'open'} details />
              </li>
            ))}
          </ul>
        ) : (
          <div className="table-wrap">
            <table className="data-table reports-table" aria-label={t('Reported players')}>
              <thead>
                <tr>
                  <th>{t('Player')}</th><th>{t('Reports')}</th><th>{t('Categories')}</th><th>{t('First report')}</th>
                  <th>{t('Last report')}</th><th>{t('Reported by')}</th><th>{t('Claim and resolve')}</th>
                </tr>
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
        {q.data?.hasMore && <p className="muted">{t('More players have reports: narrow the filter to see them.')}</p>}
      </div>
      <p className="muted">{t('Keys: j and k move between players, Enter opens their reports.')}</p>
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
  const { t } = useTranslation('reports');
  return (
    <span>
      <Trans t={t} i18nKey="<strong>{{last}}</strong> in 24 h" values={{ last: formatNumber(p.last24h) }} components={{ strong: <strong /> }} />
      <span className="muted"> · {t('{{all}} in all', { all: formatNumber(p.count) })}</span>
    </span>
  );
}

// categoryWords are the player's report categories (the game's labels),
// each with its count when it has more than one.
const categoryWords = (p: ReportedPlayer) => p.categories.map((c) => (c.count > 1 ? `${c.label} (${formatNumber(c.count)})` : c.label)).join(', ');

// PlayerLink is a player by name, linked to their page; the id on hover.
function PlayerLink({ user }: { user: UserRef }) {
  return <Link to={'/users/' + seg(user.id)} title={user.id}>{name(user)}</Link>;
}

// OperatorName is who claimed or resolved: "you", their label (linked),
// else "another operator" (one whose row the viewer may not read, or
// without a display name). It is only ever said after "by" ("Claimed by
// …", "dismissed by …"): a language that declines it (German's dative,
// "von Ihnen") translates these words in that case.
function OperatorName({ user }: { user: UserRef | undefined }) {
  const me = useMe();
  const { t } = useTranslation('reports');
  if (user && user.id === me.data?.userId) return <>{t('you')}</>;
  if (!user?.label) return <span title={user?.id}>{t('another operator')}</span>;
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
  const { t } = useTranslation('reports');
  const me = useMe();
  const users = useUsersMeta();
  const refresh = useRefresh();
  const [confirmDialog, ask] = useConfirm();
  const [resolving, setResolving] = useState(false);
  const who = name(player);
  const mine = claim?.by.id === me.data?.userId;
  const admin = me.data?.role === 'admin';
  // A claim that expired keeps no one out: claiming takes it.
  const held = !!claim && !claim.stale;
  const path = { params: { path: { playerId: player.id } } };
  const claimIt = useMutation({
    mutationFn: (takeover: boolean) => dataOf(client.POST('/_reports/{playerId}/claim', { ...path, body: takeover ? { takeover: true } : {} })),
    onSuccess: async (r) => {
      const from = r.takenFrom;
      if (!from) toast.success(t('You are working on the reports about {{name}}', { name: who }));
      else if (r.expired) {
        toast.success(from.label
          ? t('You are working on the reports about {{name}}; the claim of {{holder}} had expired', { name: who, holder: from.label })
          : t('You are working on the reports about {{name}}; the claim of another operator had expired', { name: who }));
      } else {
        toast.success(from.label
          ? t('You took over the reports about {{name}} from {{holder}}', { name: who, holder: from.label })
          : t('You took over the reports about {{name}} from another operator', { name: who }));
      }
      // The Claim button is gone once the claim shows: the focus goes on
      // to Resolve, not to the page's body.
      await refresh(player.id);
      const a = document.activeElement;
      if (!a || a === document.body || !a.isConnected || box.current?.contains(a)) box.current?.querySelector<HTMLElement>('button.primary')?.focus();
    },
    onError: (err) => toast.error(err instanceof ApiError && err.code === 'claimed' ? t('Not claimed: {{reason}}', { reason: errorText(err) }) : errorText(err)),
    onSettled: (_d, err) => void (err ? refresh(player.id) : undefined),
  });
  const release = useMutation({
    mutationFn: () => dataOf(client.POST('/_reports/{playerId}/release', { ...path, body: {} })),
    onSuccess: (r) => {
      const from = r.releasedFrom;
      if (from.id === me.data?.userId) return void toast.success(t('You released the reports about {{name}}', { name: who }));
      toast.success(from.label
        ? t('Released the claim of {{holder}} on the reports about {{name}}', { name: who, holder: from.label })
        : t('Released the claim of another operator on the reports about {{name}}', { name: who }));
    },
    onError: (err) => toast.error(errorText(err)),
    onSettled: () => void refresh(player.id),
  });
  // takeOver asks first, naming whose claim it takes.
  const takeOver = async () => {
    const holder = claim?.by.label;
    const ok = await ask({
      title: t('Take over the reports about {{name}}?', { name: who }),
      description: holder
        ? t('{{holder}} is working on them. They can no longer resolve them once you take over.', { holder })
        : t('Another operator is working on them. They can no longer resolve them once you take over.'),
      confirmLabel: t('Take over'),
    });
    if (ok) claimIt.mutate(true);
  };
  const box = useRef<HTMLDivElement>(null);
  const mayAct = open && !!users?.permissions.update;
  return (
    <div className="report-actions" ref={box}>
      {confirmDialog}
      {details && <Link className="report-details button" to={'/reports/' + seg(player.id)} aria-label={t('Reports about {{name}}', { name: who })}>{t('Reports')}</Link>}
      {open && (
        <span className="report-claim muted" title={claim && details ? t('since {{time}}', { time: formatTime(claim.at) }) : undefined}>
          {claim ? (
            claim.stale ? (
              mine ? t('Claimed by you (expired)') : <Trans t={t} i18nKey="Claimed by <who/> (expired)" components={{ who: <OperatorName user={claim.by} /> }} />
            ) : mine ? t('Claimed by you') : <Trans t={t} i18nKey="Claimed by <who/>" components={{ who: <OperatorName user={claim.by} /> }} />
          ) : t('Not claimed')}
          {/* The queue's row is narrow: there the time is the title's. */}
          {claim && !details && <>{' '}<Trans t={t} i18nKey="since <when/>" components={{ when: <Time value={claim.at} /> }} /></>}
        </span>
      )}
      {mayAct && !mine && (!held || admin) && (
        <button
          type="button"
          onClick={() => (held ? void takeOver() : claimIt.mutate(false))}
          disabled={claimIt.isPending}
          aria-label={held ? t('Take over the reports about {{name}}', { name: who }) : t('Claim the reports about {{name}}', { name: who })}
        >
          {held ? t('Take over') : t('Claim')}
        </button>
      )}
      {mayAct && !!claim && (mine || admin) && (
        <button type="button" onClick={() => release.mutate()} disabled={release.isPending} aria-label={t('Release the reports about {{name}}', { name: who })}>{t('Release')}</button>
      )}
      {mayAct && (mine || !held || admin) && (
        <button type="button" className="primary" onClick={() => setResolving(true)} aria-label={t('Resolve the reports about {{name}}', { name: who })}>{t('Resolve…')}</button>
      )}
      {resolving && (
        <ResolveDialog
          player={player}
          onClose={() => setResolving(false)}
          onDone={() => { setResolving(false); void refresh(player.id); }}
          onRefused={() => void refresh(player.id)}
        />
      )}
    </div>
  );
}

type ResolveResult = Ok<'/_reports/{playerId}/resolve', 'post'>;

const outcomeKeys = ['dismiss', 'warn', 'kick', 'ban'] as const;
type Outcome = (typeof outcomeKeys)[number];

// useOutcomes are the outcomes a resolution offers, each with a hint.
function useOutcomes(): { key: Outcome; label: string; hint: string }[] {
  const { t } = useTranslation('reports');
  return [
    { key: 'dismiss', label: t('Dismiss'), hint: t('nothing wrong: close the reports') },
    { key: 'warn', label: t('Warn'), hint: t('a note on the player') },
    { key: 'kick', label: t('Kick'), hint: t('end their sessions; they may sign in again') },
    { key: 'ban', label: t('Ban'), hint: t('for a time, or for good') },
  ];
}

// useResolvedWords says how a resolution went, for its toast: what was
// done to the player, the live sessions it closed (a kick or a ban) and
// the reports it closed, "Player 07 banned for 7 days; 1 live session
// closed; 3 reports closed". A ban's length is "for 7 days" for one of
// the server's presets (GET /auth/me banPresets), "for good", else "until
// <when>".
function useResolvedWords() {
  const { t } = useTranslation('reports');
  return (who: string, outcome: Outcome, r: ResolveResult, until: string | null | undefined, presets: BanPreset[]): string => {
    const closed = t('{{count, number}} reports closed', { count: r.reports.length });
    const sessions = r.sessionsClosed ? t('{{count, number}} live sessions closed', { count: r.sessionsClosed }) : '';
    const banned = () => {
      if (!until) return t('{{name}} banned for good', { name: who });
      const ms = new Date(until).getTime() - Date.now();
      const p = presets.find((x) => x.seconds > 0 && Math.abs(x.seconds * 1000 - ms) < 5 * 60_000);
      return p ? t('{{name}} banned for {{length}}', { name: who, length: durationWords(p.seconds) }) : t('{{name}} banned until {{time}}', { name: who, time: formatTime(until) });
    };
    switch (outcome) {
      case 'dismiss': return [t('Reports about {{name}} dismissed', { name: who }), closed].join('; ');
      case 'warn': return [t('{{name}} warned', { name: who }), closed].join('; ');
      case 'kick': return [t('{{name}} kicked', { name: who }), sessions, closed].filter(Boolean).join('; ');
      case 'ban': return [banned(), sessions, closed].filter(Boolean).join('; ');
    }
  };
}

// ResolveDialog closes every open report about the player with one
// outcome; a ban takes its length and reason from the one ban form.
// onRefused runs when another moderator holds the claim (the screen
// reads who again).
function ResolveDialog({ player, onClose, onDone, onRefused }: { player: UserRef; onClose: () => void; onDone: () => void; onRefused: () => void }) {
  const { t } = useTranslation('reports');
  const id = useId();
  const who = name(player);
  const outcomes = useOutcomes();
  const resolvedWords = useResolvedWords();
  const [outcome, setOutcome] = useState<Outcome | ''>('');
  const [note, setNote] = useState('');
  const [problem, setProblem] = useState('');
  const presets = useMe().data?.banPresets ?? [];
  const path = { params: { path: { playerId: player.id } } };
  const refused = (err: unknown) => {
    if (err instanceof ApiError && err.code === 'claimed') onRefused();
  };
  const done = (o: Outcome, r: ResolveResult, until?: string | null) => {
    const words = resolvedWords(who, o, r, until, presets);
    toast.success(r.partial ? t('{{done}} (some live sessions may still be open)', { done: words }) : words);
    onDone();
  };
  const resolve = useMutation({
    mutationFn: (o: Outcome) => dataOf(client.POST('/_reports/{playerId}/resolve', { ...path, body: { outcome: o, ...(note.trim() ? { note: note.trim() } : {}) } })),
    onSuccess: (r, o) => done(o, r),
    onError: refused,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!outcome) return setProblem(t('Choose an outcome.'));
    if (outcome === 'warn' && !note.trim()) return setProblem(t('Write the warning: it becomes a note on the player.'));
    setProblem('');
    resolve.mutate(outcome);
  };
  return (
    <Modal title={t('Resolve the reports about {{name}}', { name: who })} onClose={onClose} description={t('Every open report about this player closes with the outcome, in one step.')}>
      <fieldset className="choices" aria-describedby={problem ? id + '-problem' : undefined}>
        <legend>{t('Outcome')}</legend>
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
          onSubmit={(b: BanBody) =>
            dataOf(client.POST('/_reports/{playerId}/resolve', { ...path, body: { outcome: 'ban', ...(b.reason ? { note: b.reason } : {}), ban: { until: b.until, ...(b.reason ? { reason: b.reason } : {}) } } }))
              .then((r) => ({ r, until: b.until }))
              .catch((err: unknown) => {
                refused(err);
                throw err;
              })
          }
          onCancel={onClose}
          onDone={({ r, until }) => done('ban', r, until)}
        />
      ) : (
        <form className="stack" onSubmit={submit} noValidate>
          <label className="resolve-note">
            {outcome === 'warn' ? t('Warning') : t('Note')}{' '}
            <span className="muted">{outcome === 'warn' ? t('(required; kept as a note on the player)') : t('(optional, kept with the resolution)')}</span>
            <textarea name="note" maxLength={2000} value={note} onChange={(e) => { setNote(e.target.value); setProblem(''); }} />
          </label>
          {(problem || resolve.isError) && <p className="form-error" role="alert" id={id + '-problem'}>{problem || errorText(resolve.error)}</p>}
          <div className="dialog-buttons">
            <button type="button" onClick={onClose}>{t('Cancel')}</button>
            <button type="submit" className={outcome === 'kick' ? 'danger' : 'primary'} disabled={resolve.isPending || resolve.isSuccess}>{t('Confirm')}</button>
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
  const { t } = useTranslation('reports');
  const { playerId = '' } = useParams();
  const q = usePlayerReports(playerId);
  const who = q.data ? name(q.data.player) : t('a player');
  usePageTitle(t('Reports about {{name}}', { name: who }));
  const open = q.data?.received.some((r) => r.status === 'open') ?? false;
  return (
    <section>
      <p className="muted"><Link to="/reports">{t('Reports')}</Link> ›</p>
      {q.isPending ? <Loading /> : q.isError ? <ErrorNote error={q.error} /> : (
        <>
          <div className="page-title reports-head">
            <h1>{t('Reports about {{name}}', { name: who })}</h1>
            <Link to={'/users/' + seg(playerId)}>{t("{{name}}'s page", { name: who })}</Link>
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
    // Read again while shown, as the queue is: a claim taken over or
    // released elsewhere shows here.
    staleTime: 0,
    refetchInterval: pollEvery,
    refetchOnWindowFocus: true,
  });
}

// PlayerReports is the user page's Reports tab: the reports about the
// player and those they filed.
export function PlayerReports({ playerId }: { playerId: string }) {
  const { t } = useTranslation('reports');
  const q = usePlayerReports(playerId);
  if (q.isPending) return <Loading />;
  if (q.isError) return <ErrorNote error={q.error} />;
  const open = q.data.received.filter((r) => r.status === 'open').length;
  return (
    <>
      {open > 0 && (
        <p>
          <Link to={'/reports/' + seg(playerId)}>{t('{{count, number}} open reports about {{name}} in the queue', { count: open, name: name(q.data.player) })}</Link>
        </p>
      )}
      <ReportsOf data={q.data} level={3} />
    </>
  );
}

function ReportsOf({ data, level }: { data: PlayerReportsAnswer; level: 2 | 3 }) {
  const { t } = useTranslation('reports');
  const H = level === 2 ? 'h2' : 'h3';
  return (
    <>
      <H>{t('Received ({{n}})', { n: formatNumber(data.received.length) })}</H>
      {data.received.length === 0 ? <p className="muted">{t('No one reported this player.')}</p> : <ReportList reports={data.received} show="reporter" />}
      <H>{t('Filed ({{n}})', { n: formatNumber(data.filed.length) })}</H>
      {data.filed.length === 0 ? <p className="muted">{t('This player filed no report.')}</p> : <ReportList reports={data.filed} show="player" />}
    </>
  );
}

// Resolution says how a report was resolved, by whom and when: "dismissed
// by you, 4 Dec 2026, 06:20".
function Resolution({ r }: { r: Report }) {
  const { t } = useTranslation('reports');
  const parts = { who: <OperatorName user={r.resolvedBy} />, when: <Time value={r.resolvedAt} /> };
  switch (r.outcome) {
    case 'dismiss': return <Trans t={t} i18nKey="dismissed by <who/>, <when/>" components={parts} />;
    case 'warn': return <Trans t={t} i18nKey="warned by <who/>, <when/>" components={parts} />;
    case 'kick': return <Trans t={t} i18nKey="kicked by <who/>, <when/>" components={parts} />;
    case 'ban': return <Trans t={t} i18nKey="banned by <who/>, <when/>" components={parts} />;
    case 'erase': return <Trans t={t} i18nKey="closed by an erase by <who/>, <when/>" components={parts} />;
    case undefined:
    case '': return <Trans t={t} i18nKey="resolved by <who/>, <when/>" components={parts} />;
    // An outcome this panel does not know is said as the server names it.
    default: return <Trans t={t} i18nKey="{{outcome}} by <who/>, <when/>" values={{ outcome: r.outcome }} components={parts} />;
  }
}

// BanLength is a ban's end after its resolution: " · until <when>", or
// " · for good".
function BanLength({ r }: { r: Report }) {
  const { t } = useTranslation('reports');
  const d = r.resolution;
  if (!d || (!d.until && !d.permanent)) return null;
  return <>{' · '}{d.until ? <Trans t={t} i18nKey="until <when/>" components={{ when: <Time value={d.until} /> }} /> : t('for good')}</>;
}

// ResolutionWords are the resolver's own words, shown to an admin and to
// the operator who resolved: a warning's text, a ban's reason, the note.
function ResolutionWords({ r }: { r: Report }) {
  const { t } = useTranslation('reports');
  const d = r.resolution;
  if (!d) return null;
  // A ban's reason is its note too (the resolve form sends both).
  const note = d.note && d.note !== d.reason ? d.note : '';
  if (!note && !d.reason) return null;
  return (
    <>
      {d.reason && <p className="report-meta report-resolution">{t('Reason told to the player: {{text}}', { text: d.reason })}</p>}
      {note && <p className="report-meta report-resolution">{r.outcome === 'warn' ? t('Warning: {{text}}', { text: note }) : t('Note: {{text}}', { text: note })}</p>}
    </>
  );
}

// Other is who filed a report, or whom it is about: a player (linked), or
// the game itself.
function Other({ user, show }: { user: UserRef | undefined; show: 'reporter' | 'player' }) {
  const { t } = useTranslation('reports');
  if (!user) return <>{show === 'reporter' ? t('by the game') : t('about the game')}</>;
  const who = { who: <PlayerLink user={user} /> };
  return show === 'reporter' ? <Trans t={t} i18nKey="by <who/>" components={who} /> : <Trans t={t} i18nKey="about <who/>" components={who} />;
}

// ReportList says each report: who filed it (or about whom), the
// category, the text, when, the room, the evidence as its category
// declares it, and how it was resolved.
function ReportList({ reports, show }: { reports: Report[]; show: 'reporter' | 'player' }) {
  const { t } = useTranslation('reports');
  return (
    <ul className="report-list">
      {reports.map((r) => (
        <li key={String(r.id)} className="report-item">
          <div className="report-head">
            <strong>{r.categoryLabel}</strong>
            <span><Other user={show === 'reporter' ? r.reporter : r.player} show={show} /></span>
            <Time value={r.createdAt} className="muted" />
            {r.count > 1 && (
              <span className="muted">
                <Trans t={t} i18nKey="filed {{count, number}} times, last <when/>" count={r.count} components={{ when: <Time value={r.lastAt} /> }} />
              </span>
            )}
            <span className={'badge' + (r.status === 'open' ? ' badge-locked' : '')}>{r.status === 'open' ? t('Open') : t('Resolved')}</span>
          </div>
          {r.text && <p className="report-text">{r.text}</p>}
          {r.evidence && <EvidenceView evidence={r.evidence} />}
          {(r.room || r.resolvedAt) && (
            <p className="report-meta">
              {r.room && <RoomWords room={r.room} />}
              {r.resolvedAt && (
                <span className="muted">
                  <Resolution r={r} />
                  <BanLength r={r} />
                </span>
              )}
            </p>
          )}
          {r.resolvedAt && <ResolutionWords r={r} />}
        </li>
      ))}
    </ul>
  );
}

// inTextLink is a link inside a sentence: underlined, not told by its
// colour alone.
const inTextLink = { textDecoration: 'underline', textUnderlineOffset: '2px' } as const;

// (A link inside a translated sentence is tagged <open>, never <link>:
// Trans parses the text as HTML, where <link> is a void element whose
// words would fall outside it.)
// RoomWords is the room a report was filed in: linked while it is live
// (and the reported session with it while it is still there), "ended"
// once it is gone.
function RoomWords({ room }: { room: NonNullable<Report['room']> }) {
  const { t } = useTranslation('reports');
  const to = '/rooms/' + seg(room.id);
  if (!room.live) {
    return (
      <span>
        <Trans t={t} i18nKey="Room <id>{{id}}</id> <muted>(ended)</muted>" values={{ id: room.id }} components={{ id: <span className="mono" />, muted: <span className="muted" /> }} />
      </span>
    );
  }
  return (
    <span>
      <Trans t={t} i18nKey="Room <open>{{id}}</open>" values={{ id: room.id }} components={{ open: <Link to={to} style={inTextLink} /> }} />
      {room.sessionLive && room.sessionId ? (
        <> · <Link to={to} title={room.sessionId} style={inTextLink}>{t("the player's session is still there")}</Link></>
      ) : (
        <span className="muted"> {t('(the player left)')}</span>
      )}
    </span>
  );
}

// EvidenceView shows evidence as its category declares it: a chat line
// as text, a row as a link with its label; anything else is named, never
// printed as JSON.
function EvidenceView({ evidence }: { evidence: NonNullable<Report['evidence']> }): ReactNode {
  const { t } = useTranslation('reports');
  const catalog = useCatalog();
  if (evidence.kind === 'text') return <blockquote className="report-evidence">{evidence.text}</blockquote>;
  if (evidence.kind === 'row') {
    const meta = catalog.data?.find((m) => m.name === evidence.resource);
    // The resource's label is the game's; "Row" is the panel's.
    const label = evidence.label || (meta ? `${singular(meta.label)} ${evidence.id}` : t('Row {{id}}', { id: evidence.id }));
    // An operator who may not open the row is told so plainly.
    if (evidence.readable === false) {
      return (
        <p className="report-evidence">
          {meta ? t('Evidence: {{label}} (outside your scope)', { label }) : t('Evidence: row {{id}} of a section outside your scope', { id: evidence.id })}
        </p>
      );
    }
    return (
      <p className="report-evidence">
        {evidence.readable || meta?.permissions.read ? (
          <Trans t={t} i18nKey="Evidence: <open>{{label}}</open>" values={{ label }} components={{ open: <Link to={`/${seg(evidence.resource)}/${seg(evidence.id)}`} style={inTextLink} /> }} />
        ) : (
          t('Evidence: {{label}}', { label })
        )}
      </p>
    );
  }
  return <p className="report-evidence muted">{t('Evidence attached in a form this category does not declare.')}</p>;
}
