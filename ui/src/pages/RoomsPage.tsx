import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { Lock } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import { seg, type RoomSummary } from '../api';
import { roomsQuery } from '../queries';
import { Time } from '../time';
import { ErrorNote, Loading } from '../components/Status';
import { usePageTitle } from '../names';
import { formatNumber } from '../i18n';

export function RoomsPage() {
  const { t } = useTranslation('rooms');
  usePageTitle(t('Live rooms'));
  const q = useQuery({ ...roomsQuery(), refetchInterval: 2500, staleTime: 0 });
  return (
    <section>
      <div className="page-title">
        <h1>{t('Live rooms')}</h1>
        <span className="muted">{t('refreshes every few seconds')}</span>
      </div>
      {q.isPending ? (
        <Loading />
      ) : q.isError ? (
        <ErrorNote error={q.error} />
      ) : q.data.length === 0 ? (
        <p className="muted">{t('No live rooms right now.')}</p>
      ) : (
        <RoomTable rooms={q.data} />
      )}
    </section>
  );
}

function RoomTable({ rooms }: { rooms: RoomSummary[] }) {
  const { t } = useTranslation('rooms');
  // The node column shows only in a multi-node deployment.
  const nodes = rooms.some((r) => r.node);
  return (
    <div className="table-wrap">
      <table className="data-table">
        <thead>
          <tr><th>{t('Room')}</th><th>{t('Name')}</th>{nodes && <th>{t('Node')}</th>}<th>{t('Clients')}</th><th>{t('Locked')}</th><th>{t('Created')}</th></tr>
        </thead>
        <tbody>
          {rooms.map((r) => (
            <tr key={r.roomId}>
              <td><Link to={'/rooms/' + seg(r.roomId)} className="mono">{r.roomId}</Link></td>
              <td>{r.name}</td>
              {nodes && <td className="mono">{r.node ?? '—'}</td>}
              <td>{formatNumber(r.clients)} / {formatNumber(r.maxClients)}</td>
              <td>{r.locked ? <span className="badge badge-locked"><Lock size={12} aria-hidden="true" /> {t('locked')}</span> : t('open')}</td>
              <td><Time value={r.createdAt} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
