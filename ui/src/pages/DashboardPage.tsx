import { lazy, Suspense } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { client, dataOf, seg, type RoomSummary, type Row, type SeriesData, type Stat, type Widget } from '../api';
import { jsonSummary } from '../components/CellValue';
import { DataTable } from '../components/DataTable';
import { ErrorNote, Loading } from '../components/Status';
import { usePageTitle } from '../names';
import { useResourceMeta } from '../queries';
import { tableColumns } from './columns';
import { stringifyJSON } from '../json';
import { otherLine, useActionLabel } from '../auditWords';
import { formatDay, formatTime, Time } from '../time';

export function DashboardPage() {
  usePageTitle('Dashboard');
  // The server cannot know the operator's zone: "today" is the start of
  // the operator's day, so "Sign-ups today" means theirs.
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  const today = midnight.toISOString();
  // The charts' range is in the URL, so a reload keeps it.
  const [params, setParams] = useSearchParams();
  const range = ranges.some((r) => r.value === params.get('range')) ? (params.get('range') as string) : '24h';
  const q = useQuery({
    queryKey: ['dashboard', today, range],
    queryFn: () => dataOf(client.GET('/_dashboard', { params: { query: { today, range: range as '24h' | '7d' | '30d' } } })).then((d) => d as { widgets: Widget[] }),
    refetchInterval: 15_000,
    placeholderData: keepPreviousData,
  });
  return (
    <section>
      <div className="page-title">
        <h1>Dashboard</h1>
        <div className="segmented" role="group" aria-label="Charts show">
          {ranges.map((r) => (
            <button key={r.value} type="button" aria-pressed={range === r.value} onClick={() => setParams(r.value === '24h' ? {} : { range: r.value }, { replace: true })}>
              {r.label}
            </button>
          ))}
        </div>
      </div>
      {q.isPending ? (
        <Loading />
      ) : q.isError ? (
        <ErrorNote error={q.error} />
      ) : (
        <div className="widgets">
          {q.data.widgets.map((w) => (
            <DashboardWidget key={w.id} widget={w} />
          ))}
        </div>
      )}
    </section>
  );
}

function DashboardWidget({ widget }: { widget: Widget }) {
  return (
    <article className={'widget widget-' + widget.render} aria-label={widget.title}>
      <h2>{widget.title}</h2>
      {widget.error ? (
        <ErrorNote error={widget.error} />
      ) : widget.id === 'health' ? (
        <HealthWidget data={widget.data} />
      ) : widget.id === 'recentModeration' && Array.isArray(widget.data) ? (
        <ModerationWidget rows={widget.data as Row[]} more={widget.more} />
      ) : widget.id === 'auditEvents' && widget.render === 'series' && widget.data && typeof widget.data === 'object' ? (
        <AuditSeriesWidget data={widget.data as SeriesData} title={widget.title} />
      ) : widget.render === 'series' && widget.data && typeof widget.data === 'object' ? (
        <SeriesWidget data={widget.data as SeriesData} title={widget.title} />
      ) : widget.id === 'openReports' && Array.isArray(widget.data) ? (
        <OpenReportsWidget stats={widget.data as Stat[]} />
      ) : widget.render === 'stats' && Array.isArray(widget.data) ? (
        <StatsWidget stats={widget.data as Stat[]} />
      ) : widget.id === 'liveRooms' && Array.isArray(widget.data) ? (
        <RoomsWidget rooms={widget.data as RoomSummary[]} />
      ) : widget.render === 'kpi' ? (
        <KpiWidget data={widget.data} />
      ) : widget.render === 'table' && widget.resource ? (
        <ResourceTableWidget resource={widget.resource} data={widget.data} />
      ) : widget.render === 'table' ? (
        <TableWidget data={widget.data} />
      ) : (
        <pre className="json-block">{stringifyJSON(widget.data, 2)}</pre>
      )}
    </article>
  );
}

function display(key: string, v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number' || typeof v === 'bigint') return v.toLocaleString();
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return /(_at|At)$/.test(key) ? formatTime(v) : v;
  return jsonSummary(v);
}

const ranges = [
  { value: '24h', label: '24 hours' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
];

const SeriesChart = lazy(() => import('../components/SeriesChart'));

// AuditSeriesWidget is the audit log's chart: its lines are actions,
// named in words.
function AuditSeriesWidget({ data, title }: { data: SeriesData; title: string }) {
  const label = useActionLabel();
  const named = { ...data, series: data.series.map((s) => ({ ...s, name: s.name === otherLine ? 'Other' : label(s.name) })) };
  return <SeriesWidget data={named} title={title} />;
}

// SeriesWidget draws a chart, and the same points as a table for whoever
// reads rather than looks (the chart itself is hidden from screen readers).
function SeriesWidget({ data, title }: { data: SeriesData; title: string }) {
  if (data.series.length === 0) return <p className="muted">Nothing you may see.</p>;
  const daily = data.step >= 86_400;
  const when = (t: string) => (daily ? formatDay(t) : formatTime(t));
  const total = data.series.reduce((n, s) => n + s.points.reduce((m, p) => m + p.v, 0), 0);
  return (
    <>
      <Suspense fallback={<div className="series-chart" />}>
        <SeriesChart data={data} label={title} />
      </Suspense>
      <details className="series-table">
        <summary>As a table{data.unit ? ` (${data.unit})` : ''}</summary>
        <div className="table-wrap">
          <table className="data-table compact" aria-label={title}>
            <thead>
              <tr><th>When</th>{data.series.map((s) => <th key={s.name}>{s.name}</th>)}</tr>
            </thead>
            <tbody>
              {(data.series[0]?.points ?? []).map((p, i) => (
                <tr key={p.t}><td><time dateTime={p.t} title={p.t}>{when(p.t)}</time></td>{data.series.map((s) => <td key={s.name}>{(s.points[i]?.v ?? 0).toLocaleString()}</td>)}</tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
      {total === 0 && <p className="muted">None in this range.</p>}
    </>
  );
}

// KpiWidget shows labelled numbers (a game's own "kpi" widget).
function KpiWidget({ data }: { data: unknown }) {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return <p className="kpi-value">{display('', data)}</p>;
  return (
    <dl className="kpis">
      {Object.entries(data).map(([k, v]) => (
        <div key={k} className="kpi">
          <dt>{k}</dt>
          <dd>{display(k, v)}</dd>
        </div>
      ))}
    </dl>
  );
}

// StatsWidget shows figures, each linked to the list it counts; one read
// from the database's statistics on a large table reads "≈".
function StatsWidget({ stats }: { stats: Stat[] }) {
  if (stats.length === 0) return <p className="muted">Nothing you may see.</p>;
  return (
    <dl className="kpis">
      {stats.map((s) => {
        const n = s.value.toLocaleString();
        const text = s.estimated ? <abbr title="Estimated from the database's statistics">≈ {n}</abbr> : n;
        return (
          <div key={s.label} className="kpi">
            <dt>{s.label}</dt>
            <dd>{s.link ? <Link to={s.link} aria-label={`${s.label}: ${s.estimated ? 'about ' : ''}${n}`}>{text}</Link> : text}</dd>
          </div>
        );
      })}
    </dl>
  );
}

// hoursAgo says an age in whole hours as a person reads it.
function hoursAgo(h: number): string {
  if (h < 1) return 'under an hour ago';
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} days ago`;
}

// OpenReportsWidget says the queue at a glance: how many reports are open
// (linked to the queue), how old the oldest is, and the most reported
// players, each linked to their page. The server sends the two figures
// first, then one stat per player.
function OpenReportsWidget({ stats }: { stats: Stat[] }) {
  const [count, oldest, ...players] = stats;
  if (!count) return <p className="muted">Nothing you may see.</p>;
  if (count.value === 0) return <p className="muted">No open reports. <Link to="/reports?status=resolved">Resolved reports</Link></p>;
  return (
    <div className="open-reports">
      <dl className="kpis">
        <div className="kpi">
          <dt>Open reports</dt>
          <dd><Link to={count.link ?? '/reports'} aria-label={`Open reports: ${count.value.toLocaleString()}`}>{count.value.toLocaleString()}</Link></dd>
        </div>
        {oldest && (
          <div className="kpi">
            <dt>Oldest open</dt>
            <dd className="kpi-words">{hoursAgo(oldest.value)}</dd>
          </div>
        )}
      </dl>
      {players.length > 0 && (
        <>
          <h3 className="muted">Most reported</h3>
          <ul className="top-reported">
            {players.map((p) => (
              <li key={p.link ?? p.label}>
                {p.link ? <Link to={p.link}>{p.label}</Link> : p.label}
                <span className="muted">{p.value.toLocaleString()} {p.value === 1 ? 'report' : 'reports'}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

const moderationVerbs: Record<string, string> = {
  'user.ban': 'banned',
  'user.unban': 'unbanned',
  'user.revoke_sessions': 'revoked the sessions of',
};

// ModerationWidget says the week's last moderation as sentences: when
// (linked to the audit entry), who, did what to whom (linked), and why.
function ModerationWidget({ rows, more }: { rows: Row[]; more?: Stat }) {
  const label = useActionLabel();
  if (rows.length === 0) return <p className="muted">No moderation this week.</p>;
  return (
    <ul className="moderation-feed">
      {rows.map((r) => {
        const labels = (r._labels ?? {}) as Record<string, string>;
        const target = String(r.target_id ?? '');
        const payload = (r.payload ?? {}) as { reason?: string; until?: string; userId?: string; roomName?: string };
        const room = r.action === 'room.kick';
        return (
          <li key={String(r.id)}>
            <Link to={'/adminAudit/' + seg(String(r.id))} className="feed-when muted"><Time value={r.created_at} /></Link>
            <strong>{labels.operator_id ?? (r.operator_id ? String(r.operator_id) : 'the game')}</strong>{' '}
            {room ? (
              // "kicked Player 07 from arena", both linked.
              <>
                kicked {payload.userId ? <Link to={'/users/' + seg(payload.userId)}>{labels.player ?? payload.userId}</Link> : 'a player'} from{' '}
                <Link to={'/rooms/' + seg(target)} title={target}>{payload.roomName || target}</Link>
              </>
            ) : (
              <>
                {moderationVerbs[String(r.action)] ?? label(r.action)}{' '}
                <Link to={'/users/' + seg(target)}>{labels.target_id ?? target}</Link>
              </>
            )}
            {r.action === 'user.ban' && (payload.until ? <> until <Time value={payload.until} /></> : ' for good')}
            {payload.reason ? <span className="muted"> · “{payload.reason}”</span> : null}
          </li>
        );
      })}
      {more?.link && (
        <li className="feed-more">
          <Link to={more.link}>See all {more.estimated ? '≈ ' : ''}{more.value.toLocaleString()}</Link>{' '}
          <span className="muted">(showing {rows.length})</span>
        </li>
      )}
    </ul>
  );
}

// ResourceTableWidget shows rows of a resource as its list does: its
// columns, labels and order, each row linked to its page.
function ResourceTableWidget({ resource, data }: { resource: string; data: unknown }) {
  const meta = useResourceMeta(resource);
  if (!meta || !Array.isArray(data)) return <TableWidget data={data} />;
  if (data.length === 0) return <p className="muted">Nothing yet.</p>;
  return <DataTable meta={meta} columns={tableColumns(meta)} rows={data as Row[]} />;
}

function TableWidget({ data }: { data: unknown }) {
  if (!Array.isArray(data)) return <pre className="json-block">{stringifyJSON(data, 2)}</pre>;
  if (data.length === 0) return <p className="muted">Nothing yet.</p>;
  const rows = data as Record<string, unknown>[];
  const keys = Array.from(new Set(rows.flatMap((r) => (r && typeof r === 'object' ? Object.keys(r) : []))));
  return (
    <div className="table-wrap">
      <table className="data-table compact">
        <thead>
          <tr>{keys.map((k) => <th key={k}>{k}</th>)}</tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              {keys.map((k) => <td key={k}>{display(k, r?.[k])}</td>)}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

// HealthWidget says the panel's health in words: "Database: reachable ·
// 1.3 ms", then each of the game's checks (Options.HealthChecks).
function HealthWidget({ data }: { data: unknown }) {
  const h = (data ?? {}) as { ok?: boolean; db?: string; latencyMs?: number; checks?: Record<string, string> };
  const ms = typeof h.latencyMs === 'number' ? `${h.latencyMs < 10 ? h.latencyMs.toFixed(1) : Math.round(h.latencyMs)} ms` : '';
  const line = (name: string, status: string | undefined, extra = '') => {
    const up = status === 'ok';
    return (
      <li key={name} className={up ? undefined : 'health-down'}>
        <strong>{name}</strong>: {up ? 'reachable' : status ?? 'unknown'}
        {extra && up ? <span className="muted"> · {extra}</span> : null}
      </li>
    );
  };
  return (
    <ul className="health">
      {line('Database', h.db, ms)}
      {Object.entries(h.checks ?? {}).map(([name, status]) => line(name, status))}
    </ul>
  );
}

// RoomsWidget lists the live rooms, each linked to its page.
function RoomsWidget({ rooms }: { rooms: RoomSummary[] }) {
  if (rooms.length === 0) return <p className="muted">No live rooms.</p>;
  const nodes = rooms.some((r) => r.node);
  return (
    <div className="table-wrap">
      <table className="data-table compact">
        <thead>
          <tr><th>Room</th><th>Players</th><th>Locked</th>{nodes && <th>Server</th>}<th>Since</th></tr>
        </thead>
        <tbody>
          {rooms.map((r) => (
            <tr key={r.roomId}>
              <td><Link to={'/rooms/' + seg(r.roomId)} title={r.roomId}>{r.name || r.roomId}</Link></td>
              <td>{r.clients} / {r.maxClients}</td>
              <td>{r.locked ? 'yes' : 'no'}</td>
              {nodes && <td className="mono">{r.node ?? ''}</td>}
              <td><Time value={r.createdAt} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
