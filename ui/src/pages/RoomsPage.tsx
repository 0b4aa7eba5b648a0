import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { Lock } from 'lucide-react';
import { seg, type RoomSummary } from '../api';
import { roomsQuery } from '../queries';
import { Time } from '../time';
import { ErrorNote, Loading } from '../components/Status';
import { usePageTitle } from '../names';

export function RoomsPage() {
  usePageTitle('Live rooms');
  const q = useQuery({ ...roomsQuery(), refetchInterval: 2500, staleTime: 0 });
  return (
    <section>
      <div className="page-title">
        <h1>Live rooms</h1>
        <span className="muted">refreshes every few seconds</span>
      </div>
      {q.isPending ? (
        <Loading />
      ) : q.isError ? (
        <ErrorNote error={q.error} />
      ) : q.data.length === 0 ? (
        <p className="muted">No live rooms right now.</p>
      ) : (
        <RoomTable rooms={q.data} />
      )}
    </section>
  );
}

function RoomTable({ rooms }: { rooms: RoomSummary[] }) {
  // The node column shows only in a multi-node deployment.
  const nodes = rooms.some((r) => r.node);
  return (
    <div className="table-wrap">
      <table className="data-table">
        <thead>
          <tr><th>Room</th><th>Name</th>{nodes && <th>Node</th>}<th>Clients</th><th>Locked</th><th>Created</th></tr>
        </thead>
        <tbody>
          {rooms.map((r) => (
            <tr key={r.roomId}>
              <td><Link to={'/rooms/' + seg(r.roomId)} className="mono">{r.roomId}</Link></td>
              <td>{r.name}</td>
              {nodes && <td className="mono">{r.node ?? '—'}</td>}
              <td>{r.clients} / {r.maxClients}</td>
              <td>{r.locked ? <span className="badge badge-locked"><Lock size={12} aria-hidden="true" /> locked</span> : 'open'}</td>
              <td><Time value={r.createdAt} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
