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
import { useMediaQuery } from '../theme';
import { phoneQuery } from '../components/DataCards';

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

// RoomTable lists the rooms, each said as everywhere in the panel: its
// name (linked to its page), the id beside it as secondary text. On a
// phone each room is a card, so every field shows without scrolling
// sideways.
function RoomTable({ rooms }: { rooms: RoomSummary[] }) {
  const { t } = useTranslation('rooms');
  const phone = useMediaQuery(phoneQuery);
  // The node column shows only in a multi-node deployment.
  const nodes = rooms.some((r) => r.node);
  const locked = (r: RoomSummary) => (r.locked ? <span className="badge badge-locked"><Lock size={12} aria-hidden="true" /> {t('locked')}</span> : t('open'));
  if (phone) {
    return (
      <ul className="data-cards room-cards" aria-label={t('Live rooms')}>
        {rooms.map((r) => (
          <li key={r.roomId} className="data-card">
            <div className="card-head room-card-head">
              <Link to={'/rooms/' + seg(r.roomId)} className="card-title">{r.name || r.roomId}</Link>
              {r.name && <span className="muted mono id-note room-id" title={t('Room id')}>{r.roomId}</span>}
            </div>
            <dl className="card-fields">
              <div><dt>{t('Clients')}</dt><dd>{formatNumber(r.clients)} / {formatNumber(r.maxClients)}</dd></div>
              <div><dt>{t('Locked')}</dt><dd>{locked(r)}</dd></div>
              <div className="wide"><dt>{t('Created')}</dt><dd><Time value={r.createdAt} /></dd></div>
              {nodes && <div className="wide"><dt>{t('Node')}</dt><dd className="mono">{r.node ?? '—'}</dd></div>}
            </dl>
          </li>
        ))}
      </ul>
    );
  }
  return (
    <div className="table-wrap">
      <table className="data-table">
        <thead>
          <tr><th>{t('Room')}</th><th>{t('Room id')}</th>{nodes && <th>{t('Node')}</th>}<th>{t('Clients')}</th><th>{t('Locked')}</th><th>{t('Created')}</th></tr>
        </thead>
        <tbody>
          {rooms.map((r) => (
            <tr key={r.roomId}>
              <td><Link to={'/rooms/' + seg(r.roomId)}>{r.name || r.roomId}</Link></td>
              <td className="mono muted id-note">{r.roomId}</td>
              {nodes && <td className="mono">{r.node ?? '—'}</td>}
              <td>{formatNumber(r.clients)} / {formatNumber(r.maxClients)}</td>
              <td>{locked(r)}</td>
              <td><Time value={r.createdAt} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
