import { lazy, Suspense, useMemo } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { Trans, useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
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
import i18n, { formatNumber } from '../i18n';

export function DashboardPage() {
  const { t } = useTranslation('dashboard');
  usePageTitle(t('Dashboard'));
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
    queryFn: () => dataOf(client.GET('/_dashboard', { params: { query: { today, range: range as '24h' | '7d' | '30d' } } })),
    refetchInterval: 15_000,
    placeholderData: keepPreviousData,
  });
  // The same widgets, the same objects: a chart is drawn again only when
  // its data or the language changes.
  const widgets = useMemo(() => q.data?.widgets.map((w) => builtinWidget(t, w)), [q.data, t]);
  return (
    <section>
      <div className="page-title">
        <h1>{t('Dashboard')}</h1>
        <div className="segmented" role="group" aria-label={t('Charts show')}>
          {ranges.map((r) => (
            <button key={r.value} type="button" aria-pressed={range === r.value} onClick={() => setParams(r.value === '24h' ? {} : { range: r.value }, { replace: true })}>
              {rangeLabel(r)}
            </button>
          ))}
        </div>
      </div>
      {q.isPending ? (
        <Loading />
      ) : q.isError || !widgets ? (
        <ErrorNote error={q.error} />
      ) : (
        <div className="widgets">
          {widgets.map((w) => (
            <DashboardWidget key={w.id} widget={w} />
          ))}
        </div>
      )}
    </section>
  );
}

function DashboardWidget({ widget }: { widget: Widget }) {
  // The built-ins drawn their own way; a game's widget is drawn by its
  // render whatever its id.
  const own = (id: string) => widget.builtin === true && widget.id === id;
  return (
    <article className={'widget widget-' + widget.render} aria-label={widget.title}>
      <h2>{widget.title}</h2>
      {widget.error ? (
        <ErrorNote error={widget.error} />
      ) : own('health') ? (
        <HealthWidget data={widget.data} />
      ) : own('recentModeration') && Array.isArray(widget.data) ? (
        <ModerationWidget rows={widget.data as Row[]} more={widget.more} />
      ) : own('auditEvents') && widget.render === 'series' && widget.data && typeof widget.data === 'object' ? (
        <AuditSeriesWidget data={widget.data as SeriesData} title={widget.title} />
      ) : widget.render === 'series' && widget.data && typeof widget.data === 'object' ? (
        <SeriesWidget data={widget.data as SeriesData} title={widget.title} />
      ) : own('openReports') && Array.isArray(widget.data) ? (
        <OpenReportsWidget stats={widget.data as Stat[]} />
      ) : widget.render === 'stats' && Array.isArray(widget.data) ? (
        <StatsWidget stats={widget.data as Stat[]} />
      ) : own('liveRooms') && Array.isArray(widget.data) ? (
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

// The built-in widgets (internal/dashboard's builtinWidgets, which the
// server marks builtin), whose words it sends in English: the panel says
// them in the operator's language. A game's own widget's words are its
// own, shown as sent, even where they are a built-in's English, and so is
// a built-in's text the panel has no words for.

// builtinWidget is w with, when it is a built-in, its title, the Today
// figures' labels and a chart's lines and unit in the operator's language.
function builtinWidget(t: TFunction<'dashboard'>, w: Widget): Widget {
  if (!w.builtin) return w;
  const words = new Map([
    // Titles.
    ['Today', t('Today')],
    ['Totals', t('Totals')],
    ['Players online', t('Players online')],
    ['Sign-ups', t('Sign-ups')],
    ['Audit log by action', t('Audit log by action')],
    ['Recent moderation', t('Recent moderation')],
    ['Open reports', t('Open reports')],
    ['Reports filed', t('Reports filed')],
    ['Recent users', t('Recent users')],
    ['Live rooms', t('Live rooms')],
    ['Health', t('Health')],
    // Today's figures (the totals' are resources' labels).
    ['Banned now', t('Banned now')],
    ['Sign-ups today', t('Sign-ups today')],
    ['Online now', t('Online now')],
    ['Moderation (24 h)', t('Moderation (24 h)')],
    // The charts' lines (the audit chart's are actions) and units.
    ['Reports', t('Reports')],
    ['players', t('players')],
    ['sign-ups', t('sign-ups')],
    ['reports', t('reports')],
    ['entries', t('entries')],
  ]);
  const say = (s: string) => words.get(s) ?? s;
  let data = w.data;
  if (w.id === 'today' && Array.isArray(data)) data = (data as Stat[]).map((s) => ({ ...s, label: say(s.label) }));
  if (w.render === 'series' && data && typeof data === 'object' && !Array.isArray(data)) {
    const d = data as SeriesData;
    data = { ...d, unit: d.unit && say(d.unit), series: w.id === 'auditEvents' ? d.series : d.series.map((l) => ({ ...l, name: say(l.name) })) };
  }
  return { ...w, title: say(w.title), data };
}

function display(t: TFunction<'dashboard'>, key: string, v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'bigint') return v.toLocaleString(i18n.language);
  if (typeof v === 'boolean') return v ? t('yes') : t('no');
  if (typeof v === 'string') return /(_at|At)$/.test(key) ? formatTime(v) : v;
  return jsonSummary(v);
}

// The charts' ranges, each said as a duration in the operator's language.
const ranges = [
  { value: '24h', n: 24, unit: 'hour' },
  { value: '7d', n: 7, unit: 'day' },
  { value: '30d', n: 30, unit: 'day' },
] as const;

const rangeLabel = (r: (typeof ranges)[number]) => formatNumber(r.n, { style: 'unit', unit: r.unit, unitDisplay: 'long' });

const SeriesChart = lazy(() => import('../components/SeriesChart'));

// AuditSeriesWidget is the audit log's chart: its lines are actions,
// named in words.
function AuditSeriesWidget({ data, title }: { data: SeriesData; title: string }) {
  const { t } = useTranslation('dashboard');
  const label = useActionLabel();
  const named = { ...data, series: data.series.map((s) => ({ ...s, name: s.name === otherLine ? t('Other') : label(s.name) })) };
  return <SeriesWidget data={named} title={title} />;
}

// SeriesWidget draws a chart, and the same points as a table for whoever
// reads rather than looks (the chart itself is hidden from screen readers).
function SeriesWidget({ data, title }: { data: SeriesData; title: string }) {
  const { t } = useTranslation('dashboard');
  if (data.series.length === 0) return <p className="muted">{t('Nothing you may see.')}</p>;
  const daily = data.step >= 86_400;
  const when = (t: string) => (daily ? formatDay(t) : formatTime(t));
  const total = data.series.reduce((n, s) => n + s.points.reduce((m, p) => m + p.v, 0), 0);
  return (
    <>
      <Suspense fallback={<div className="series-chart" />}>
        <SeriesChart data={data} label={title} />
      </Suspense>
      <details className="series-table">
        <summary>{data.unit ? t('As a table ({{unit}})', { unit: data.unit }) : t('As a table')}</summary>
        <div className="table-wrap">
          <table className="data-table compact" aria-label={title}>
            <thead>
              <tr><th>{t('When')}</th>{data.series.map((s) => <th key={s.name}>{s.name}</th>)}</tr>
            </thead>
            <tbody>
              {(data.series[0]?.points ?? []).map((p, i) => (
                <tr key={p.t}><td><time dateTime={p.t} title={p.t}>{when(p.t)}</time></td>{data.series.map((s) => <td key={s.name}>{formatNumber(s.points[i]?.v ?? 0)}</td>)}</tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
      {total === 0 && <p className="muted">{t('None in this range.')}</p>}
    </>
  );
}

// KpiWidget shows labelled numbers (a game's own "kpi" widget).
function KpiWidget({ data }: { data: unknown }) {
  const { t } = useTranslation('dashboard');
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return <p className="kpi-value">{display(t, '', data)}</p>;
  return (
    <dl className="kpis">
      {Object.entries(data).map(([k, v]) => (
        <div key={k} className="kpi">
          <dt>{k}</dt>
          <dd>{display(t, k, v)}</dd>
        </div>
      ))}
    </dl>
  );
}

// StatsWidget shows figures, each linked to the list it counts; one read
// from the database's statistics on a large table reads "≈".
function StatsWidget({ stats }: { stats: Stat[] }) {
  const { t } = useTranslation('dashboard');
  if (stats.length === 0) return <p className="muted">{t('Nothing you may see.')}</p>;
  return (
    <dl className="kpis">
      {stats.map((s) => {
        const n = formatNumber(s.value);
        const text = s.estimated ? <abbr title={t("Estimated from the database's statistics")}>≈ {n}</abbr> : n;
        return (
          <div key={s.label} className="kpi">
            <dt>{s.label}</dt>
            <dd>{s.link ? <Link to={s.link} aria-label={s.estimated ? t('{{label}}: about {{n}}', { label: s.label, n }) : t('{{label}}: {{n}}', { label: s.label, n })}>{text}</Link> : text}</dd>
          </div>
        );
      })}
    </dl>
  );
}

// hoursAgo says an age in whole hours as a person reads it, in the
// operator's language.
function hoursAgo(t: TFunction<'dashboard'>, h: number): string {
  if (h < 1) return t('under an hour ago');
  if (h < 48) return new Intl.RelativeTimeFormat(i18n.language, { style: 'narrow' }).format(-h, 'hour');
  return new Intl.RelativeTimeFormat(i18n.language, { style: 'long' }).format(-Math.floor(h / 24), 'day');
}

// OpenReportsWidget says the queue at a glance: how many reports are open
// (linked to the queue), how old the oldest is, and the most reported
// players, each linked to their page. The server sends the two figures
// first, then one stat per player.
function OpenReportsWidget({ stats }: { stats: Stat[] }) {
  const { t } = useTranslation('dashboard');
  const [count, oldest, ...players] = stats;
  if (!count) return <p className="muted">{t('Nothing you may see.')}</p>;
  if (count.value === 0) {
    return (
      <p className="muted">
        <Trans t={t} i18nKey="No open reports. <reports>Resolved reports</reports>" components={{ reports: <Link to="/reports?status=resolved" /> }} />
      </p>
    );
  }
  return (
    <div className="open-reports">
      <dl className="kpis">
        <div className="kpi">
          <dt>{t('Open reports')}</dt>
          <dd><Link to={count.link ?? '/reports'} aria-label={t('Open reports: {{n}}', { n: formatNumber(count.value) })}>{formatNumber(count.value)}</Link></dd>
        </div>
        {oldest && (
          <div className="kpi">
            <dt>{t('Oldest open')}</dt>
            <dd className="kpi-words">{hoursAgo(t, oldest.value)}</dd>
          </div>
        )}
      </dl>
      {players.length > 0 && (
        <>
          <h3 className="muted">{t('Most reported')}</h3>
          <ul className="top-reported">
            {players.map((p) => (
              <li key={p.link ?? p.label}>
                {p.link ? <Link to={p.link}>{p.label}</Link> : p.label}
                <span className="muted">{t('{{count, number}} reports', { count: p.value })}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

// ModerationWidget says the week's last moderation as sentences: when
// (linked to the audit entry), who, did what to whom (linked), and why.
function ModerationWidget({ rows, more }: { rows: Row[]; more?: Stat }) {
  const { t } = useTranslation('dashboard');
  if (rows.length === 0) return <p className="muted">{t('No moderation this week.')}</p>;
  return (
    <ul className="moderation-feed">
      {rows.map((r) => {
        const payload = (r.payload ?? {}) as { reason?: string };
        return (
          <li key={String(r.id)}>
            <Link to={'/adminAudit/' + seg(String(r.id))} className="feed-when muted"><Time value={r.created_at} /></Link>
            <ModerationSentence entry={r} />
            {payload.reason ? <span className="muted"> · {t('“{{reason}}”', { reason: payload.reason })}</span> : null}
          </li>
        );
      })}
      {more?.link && (
        <li className="feed-more">
          <Link to={more.link}>{more.estimated ? t('See all ≈ {{n}}', { n: formatNumber(more.value) }) : t('See all {{n}}', { n: formatNumber(more.value) })}</Link>{' '}
          <span className="muted">{t('(showing {{n}})', { n: formatNumber(rows.length) })}</span>
        </li>
      )}
    </ul>
  );
}

// ModerationSentence says who did what to whom: "admin@example.com banned
// Player 07 until 4 Dec 2026, 06:20", "… kicked Player 07 from arena", the
// player and the room linked.
function ModerationSentence({ entry: r }: { entry: Row }) {
  const { t } = useTranslation('dashboard');
  const label = useActionLabel();
  const labels = (r._labels ?? {}) as Record<string, string>;
  const target = String(r.target_id ?? '');
  const payload = (r.payload ?? {}) as { until?: string; userId?: string; roomName?: string };
  const values = {
    who: labels.operator_id ?? (r.operator_id ? String(r.operator_id) : t('the game')),
    target: labels.target_id ?? target,
    player: labels.player ?? payload.userId ?? '',
    room: payload.roomName || target,
    action: label(r.action),
  };
  const components = {
    who: <strong />,
    target: <Link to={'/users/' + seg(target)} />,
    player: <Link to={'/users/' + seg(payload.userId ?? '')} />,
    room: <Link to={'/rooms/' + seg(target)} title={target} />,
    until: <Time value={payload.until} />,
  };
  const say = { values, components };
  switch (r.action) {
    case 'room.kick':
      return payload.userId
        ? <Trans t={t} i18nKey="<who>{{who}}</who> kicked <player>{{player}}</player> from <room>{{room}}</room>" {...say} />
        : <Trans t={t} i18nKey="<who>{{who}}</who> kicked a player from <room>{{room}}</room>" {...say} />;
    case 'user.ban':
      return payload.until
        ? <Trans t={t} i18nKey="<who>{{who}}</who> banned <target>{{target}}</target> until <until></until>" {...say} />
        : <Trans t={t} i18nKey="<who>{{who}}</who> banned <target>{{target}}</target> for good" {...say} />;
    case 'user.unban':
      return <Trans t={t} i18nKey="<who>{{who}}</who> unbanned <target>{{target}}</target>" {...say} />;
    case 'user.revoke_sessions':
      return <Trans t={t} i18nKey="<who>{{who}}</who> revoked the sessions of <target>{{target}}</target>" {...say} />;
    default:
      return <Trans t={t} i18nKey="<who>{{who}}</who> {{action}} <target>{{target}}</target>" {...say} />;
  }
}

// ResourceTableWidget shows rows of a resource as its list does: its
// columns, labels and order, each row linked to its page.
function ResourceTableWidget({ resource, data }: { resource: string; data: unknown }) {
  const { t } = useTranslation('dashboard');
  const meta = useResourceMeta(resource);
  if (!meta || !Array.isArray(data)) return <TableWidget data={data} />;
  if (data.length === 0) return <p className="muted">{t('Nothing yet.')}</p>;
  return <DataTable meta={meta} columns={tableColumns(meta)} rows={data as Row[]} />;
}

function TableWidget({ data }: { data: unknown }) {
  const { t } = useTranslation('dashboard');
  if (!Array.isArray(data)) return <pre className="json-block">{stringifyJSON(data, 2)}</pre>;
  if (data.length === 0) return <p className="muted">{t('Nothing yet.')}</p>;
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
              {keys.map((k) => <td key={k}>{display(t, k, r?.[k])}</td>)}
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
  const { t } = useTranslation('dashboard');
  const h = (data ?? {}) as { ok?: boolean; db?: string; latencyMs?: number; checks?: Record<string, string> };
  const digits = typeof h.latencyMs === 'number' && h.latencyMs < 10 ? 1 : 0;
  const ms = typeof h.latencyMs === 'number'
    ? formatNumber(h.latencyMs, { style: 'unit', unit: 'millisecond', unitDisplay: 'short', minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false })
    : '';
  const line = (name: string, status: string | undefined, extra = '') => {
    const up = status === 'ok';
    return (
      <li key={name} className={up ? undefined : 'health-down'}>
        <strong>{name}</strong>: {up ? t('reachable') : status ?? t('unknown')}
        {extra && up ? <span className="muted"> · {extra}</span> : null}
      </li>
    );
  };
  return (
    <ul className="health">
      {line(t('Database'), h.db, ms)}
      {Object.entries(h.checks ?? {}).map(([name, status]) => line(name, status))}
    </ul>
  );
}

// RoomsWidget lists the live rooms, each linked to its page.
function RoomsWidget({ rooms }: { rooms: RoomSummary[] }) {
  const { t } = useTranslation('dashboard');
  if (rooms.length === 0) return <p className="muted">{t('No live rooms.')}</p>;
  const nodes = rooms.some((r) => r.node);
  return (
    <div className="table-wrap">
      <table className="data-table compact">
        <thead>
          <tr><th>{t('Room')}</th><th>{t('Players')}</th><th>{t('Locked')}</th>{nodes && <th>{t('Server')}</th>}<th>{t('Since')}</th></tr>
        </thead>
        <tbody>
          {rooms.map((r) => (
            <tr key={r.roomId}>
              <td><Link to={'/rooms/' + seg(r.roomId)} title={r.roomId}>{r.name || r.roomId}</Link></td>
              <td>{formatNumber(r.clients)} / {formatNumber(r.maxClients)}</td>
              <td>{r.locked ? t('yes') : t('no')}</td>
              {nodes && <td className="mono">{r.node ?? ''}</td>}
              <td><Time value={r.createdAt} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
