import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, seg, type RoomSummary, type Row, type Widget } from '../api';
import { formatDateTime, jsonSummary } from '../components/CellValue';
import { DataTable } from '../components/DataTable';
import { ErrorNote, Loading } from '../components/Status';
import { usePageTitle } from '../names';
import { useCatalog, useResourceMeta } from '../queries';
import { listColumns } from './columns';

export function DashboardPage() {
  usePageTitle('Dashboard');
  const q = useQuery({ queryKey: ['dashboard'], queryFn: () => api.get<{ widgets: Widget[] }>('/_dashboard'), refetchInterval: 15_000 });
  return (
    <section>
      <div className="page-title">
        <h1>Dashboard</h1>
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
      ) : widget.id === 'liveRooms' && Array.isArray(widget.data) ? (
        <RoomsWidget rooms={widget.data as RoomSummary[]} />
      ) : widget.render === 'kpi' ? (
        <KpiWidget data={widget.data} links={widget.id === 'totals'} />
      ) : widget.render === 'table' && widget.resource ? (
        <ResourceTableWidget resource={widget.resource} data={widget.data} />
      ) : widget.render === 'table' ? (
        <TableWidget data={widget.data} />
      ) : (
        <pre className="json-block">{JSON.stringify(widget.data, null, 2)}</pre>
      )}
    </article>
  );
}

function display(key: string, v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') return v.toLocaleString();
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return /(_at|At)$/.test(key) ? formatDateTime(v) : v;
  return jsonSummary(v);
}

// KpiWidget shows labelled numbers; with links (the totals), each links
// to the list of the resource it counts ("Label" or "Label (key)").
function KpiWidget({ data, links = false }: { data: unknown; links?: boolean }) {
  const catalog = useCatalog();
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return <p className="kpi-value">{display('', data)}</p>;
  const target = (k: string) => (links ? catalog.data?.find((r) => r.label === k || `${r.label} (${r.name})` === k) : undefined);
  return (
    <dl className="kpis">
      {Object.entries(data).map(([k, v]) => {
        const res = target(k);
        return (
          <div key={k} className="kpi">
            <dt>{k}</dt>
            <dd>{res ? <Link to={`/${seg(res.name)}`}>{display(k, v)}</Link> : display(k, v)}</dd>
          </div>
        );
      })}
    </dl>
  );
}

// ResourceTableWidget shows rows of a resource as its list does: its
// columns, labels and order, each row linked to its page.
function ResourceTableWidget({ resource, data }: { resource: string; data: unknown }) {
  const meta = useResourceMeta(resource);
  if (!meta || !Array.isArray(data)) return <TableWidget data={data} />;
  if (data.length === 0) return <p className="muted">Nothing yet.</p>;
  return <DataTable meta={meta} columns={listColumns(meta)} rows={data as Row[]} />;
}

function TableWidget({ data }: { data: unknown }) {
  if (!Array.isArray(data)) return <pre className="json-block">{JSON.stringify(data, null, 2)}</pre>;
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
              <td>{formatDateTime(r.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
