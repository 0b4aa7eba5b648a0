import { useEffect, useState } from 'react';
import { Command } from 'cmdk';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { Ban, Flag, LayoutDashboard, Radio } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import { client, errorText, dataOf, pageOf, query, seg, type Ok, type Row } from '../api';
import { roomsQuery, useCatalog, useMe, useRoomsEnabled, useUsersMeta } from '../queries';
import { rowLabel } from '../names';
import { mayModerateUser } from '../pages/userAccess';
import { BanForm } from './BanForm';
import { closedToast } from './closedToast';
import { ResourceIcon } from '../icons';
import { useReportsOn } from '../reports';

// PaletteBody is the command palette's content: jump to a resource, a user
// (by the start of their name or email or of a later word of it, or by
// their id or its start, searched on the server), a live room, a row of any
// resource the operator may read (by the start of its label: GET
// /_search, a few a resource), or ban a user. initial is what was typed
// before it loaded.
export default function PaletteBody({ initial, close }: { initial: string; close: () => void }) {
  const { t } = useTranslation('palette');
  const navigate = useNavigate();
  const catalog = useCatalog();
  const [search, setSearch] = useState(initial);
  const [q, setQ] = useState('');
  const [banTarget, setBanTarget] = useState<{ id: string; name: string; banned: boolean } | null>(null);
  const [mode, setMode] = useState<'all' | 'ban'>('all');
  useEffect(() => {
    const timer = setTimeout(() => setQ(search.trim()), 150);
    return () => clearTimeout(timer);
  }, [search]);

  const users = useUsersMeta();
  const canBan = users?.permissions.update ?? false;
  // Rows of every resource by their label (its start, then a later
  // word's: "23" finds "Player 23"), users among them.
  const rowHits = useQuery({
    queryKey: ['palette', 'search', q],
    enabled: q.length >= 2,
    // The search of an earlier query is aborted as the next one starts.
    queryFn: ({ signal }) => dataOf(client.GET('/_search', { params: { query: { q, limit: 5 } }, signal })),
    staleTime: 10_000,
    retry: false,
  });
  // The users found by their label, as rows (their email, their ban, what
  // the operator may do to them), in the search's order; then the user
  // whose id is what was typed or starts with it (never an id that merely
  // holds it: every id holds "23").
  const labelled = (rowHits.data?.results ?? []).filter((h) => h.resource === users?.name).map((h) => h.id);
  const userHits = useQuery({
    queryKey: ['palette', 'users', q, labelled.join(',')],
    enabled: !!users?.permissions.list && q.length >= 2 && !rowHits.isFetching,
    queryFn: async ({ signal }) => {
      const list = (p: Record<string, string>) => pageOf(client.GET('/{resource}', { params: { path: { resource: users?.name ?? '' } }, querySerializer: query(new URLSearchParams(p)), signal }));
      const byLabel = labelled.length > 0 ? list({ id_in: labelled.join(','), _limit: String(labelled.length) }) : Promise.resolve({ rows: [] as Row[] });
      // An id's type may refuse a prefix range (a UUID column): no id hits then.
      const byId = list({ id_gte: q, id_lt: q + '\uffff', _sort: 'id', _limit: '3' }).catch(() => ({ rows: [] as Row[] }));
      const [a, b] = await Promise.all([byLabel, byId]);
      const order = new Map(labelled.map((id, i) => [id, i]));
      const first = [...a.rows].sort((x, y) => (order.get(String(x.id)) ?? 0) - (order.get(String(y.id)) ?? 0));
      const seen = new Set(first.map((u) => String(u.id)));
      return { rows: [...first, ...b.rows.filter((u) => !seen.has(String(u.id)))].slice(0, 8) };
    },
  });
  // Rooms only where the server has them and the operator may list them
  // (useRoomsEnabled): no refused request for a mod without the scope.
  const roomsOn = useRoomsEnabled();
  const rooms = useQuery({ ...roomsQuery(), staleTime: 10_000, retry: false, enabled: roomsOn });
  const reportsOn = useReportsOn().on === true;

  const go = (to: string) => {
    close();
    navigate(to);
  };
  // Pages, resources and rooms are filtered as typed; users are searched
  // on the server once the typing pauses.
  const typed = search.trim().toLowerCase();
  const match = (...texts: (string | undefined)[]) => typed === '' || texts.some((text) => text?.toLowerCase().includes(typed));
  const userName = (u: Row) => (users ? rowLabel(users, String(u.id), u) : String(u.id));
  // Ban offers only whom the server lets this operator ban.
  const me = useMe();
  const userRows = (userHits.data?.rows ?? []).filter((u) => mode !== 'ban' || mayModerateUser(me.data, String(u.id), u));

  // Server results arrive after the typing: keep an entry highlighted, so
  // Enter always does something.
  const [active, setActive] = useState('');
  useEffect(() => {
    const items = [...document.querySelectorAll<HTMLElement>('.palette [cmdk-item]')].map((el) => el.dataset.value ?? '');
    if (!items.includes(active)) setActive(items[0] ?? '');
  });

  if (banTarget) return <PaletteBan target={banTarget} onDone={close} onBack={() => setBanTarget(null)} />;

  const resources = (catalog.data ?? []).filter((r) => r.permissions.list && match(r.label, r.name));
  // The rows found, grouped by resource in the server's order.
  const found = new Map<string, SearchHit[]>();
  if (mode === 'all' && q.length >= 2) {
    for (const h of rowHits.data?.results ?? []) {
      if (h.resource === users?.name && users.permissions.list) continue;
      found.set(h.resource, [...(found.get(h.resource) ?? []), h]);
    }
  }
  const searching = userHits.isFetching || rowHits.isFetching || search.trim() !== q;
  const skipped = mode === 'all' && q.length >= 2 ? (rowHits.data?.skipped ?? []) : [];
  const roomHits = (rooms.data ?? []).filter((r) => match(r.name, r.roomId)).slice(0, 8);
  return (
    <Command shouldFilter={false} label={t('Command palette')} loop value={active} onValueChange={setActive}>
      <Command.Input
        autoFocus
        value={search}
        onValueChange={setSearch}
        placeholder={mode === 'ban' ? t('Ban which user? Type an email or name…') : t('Find a resource, user, room or any row by name…')}
        aria-label={t('Search commands')}
      />
      <Command.List>
        <Command.Empty>{q.length < 2 && mode === 'ban' ? t('Type at least two letters.') : searching ? null : t('No match.')}</Command.Empty>
        {mode === 'all' && (
          <>
            {(match(t('Dashboard')) || (roomsOn && match(t('Live rooms'))) || (reportsOn && match(t('Reports')))) && (
              <Command.Group heading={t('Pages')}>
                {match(t('Dashboard')) && (
                  <Command.Item value="page:dashboard" onSelect={() => go('/')}>
                    <span><LayoutDashboard size={14} aria-hidden="true" /> {t('Dashboard')}</span>
                  </Command.Item>
                )}
                {roomsOn && match(t('Live rooms')) && (
                  <Command.Item value="page:rooms" onSelect={() => go('/rooms')}>
                    <span><Radio size={14} aria-hidden="true" /> {t('Live rooms')}</span>
                  </Command.Item>
                )}
                {reportsOn && match(t('Reports')) && (
                  <Command.Item value="page:reports" onSelect={() => go('/reports')}>
                    <span><Flag size={14} aria-hidden="true" /> {t('Reports')}</span>
                  </Command.Item>
                )}
              </Command.Group>
            )}
            {resources.length > 0 && (
              <Command.Group heading={t('Resources')}>
                {resources.map((r) => (
                  <Command.Item key={r.name} value={'resource:' + r.name} onSelect={() => go('/' + seg(r.name))}>
                    <span><ResourceIcon name={r.icon} size={14} /> {r.label}</span>
                  </Command.Item>
                ))}
              </Command.Group>
            )}
            {canBan && match(t('Ban user…')) && (
              <Command.Group heading={t('Actions')}>
                <Command.Item
                  value="action:ban"
                  onSelect={() => {
                    setMode('ban');
                    setSearch('');
                  }}
                >
                  <span><Ban size={14} aria-hidden="true" /> {t('Ban user…')}</span>
                </Command.Item>
              </Command.Group>
            )}
            {roomHits.length > 0 && typed !== '' && (
              <Command.Group heading={t('Rooms')}>
                {roomHits.map((r) => (
                  <Command.Item key={r.roomId} value={'room:' + r.roomId} onSelect={() => go('/rooms/' + seg(r.roomId))}>
                    <span>{r.name}</span>
                    <span className="muted mono">{r.roomId} · {r.clients}/{r.maxClients}</span>
                  </Command.Item>
                ))}
              </Command.Group>
            )}
          </>
        )}
        {userRows.length > 0 && (
          <Command.Group heading={mode === 'ban' ? t('Ban') : t('Users')}>
            {userRows.map((u) => {
              const id = String(u.id);
              return (
                <Command.Item
                  key={id}
                  value={'user:' + id}
                  onSelect={() => (mode === 'ban' ? setBanTarget({ id, name: userName(u), banned: !!(users?.banColumn && u[users.banColumn]) }) : go('/users/' + seg(id)))}
                >
                  <span>{userName(u)}</span>
                  <span className="muted">{String(u.email ?? '')}</span>
                </Command.Item>
              );
            })}
          </Command.Group>
        )}
        {[...found].map(([resource, hits]) => (
          <Command.Group key={resource} heading={hits[0]?.label ?? resource}>
            {hits.map((h) => (
              <Command.Item key={h.id} value={`row:${resource}:${h.id}`} onSelect={() => go(`/${seg(resource)}/${seg(h.id)}`)}>
                <span>
                  <ResourceIcon name={catalog.data?.find((r) => r.name === resource)?.icon ?? 'database'} size={14} /> {h.title}
                </span>
                <span className="muted mono palette-id"><span className="sr-only">{h.label} </span>#{h.id}</span>
              </Command.Item>
            ))}
          </Command.Group>
        ))}
        {skipped.length > 0 && !rowHits.isFetching && (
          <p className="palette-note" role="status">
            {t('Not searched: {{resources}}.', {
              resources: skipped
                .map((s) => t('{{resource}} ({{reason}})', { resource: s.label, reason: s.reason === 'limit' ? t('enough results already') : s.reason === 'timeout' ? t('too slow') : t('failed') }))
                .join(', '),
            })}
          </p>
        )}
        {rowHits.isError && <p className="palette-note" role="status">{t('Rows could not be searched: {{error}}', { error: errorText(rowHits.error) })}</p>}
        {searching && <Command.Loading>{t('Searching…')}</Command.Loading>}
      </Command.List>
    </Command>
  );
}

// GET /_search's answer: rows whose label starts with what was typed,
// and the resources not searched (too slow, failed, or past the cap).
type SearchHit = Ok<'/_search', 'get'>['results'][number];

// PaletteBan bans the picked user with the one ban form.
function PaletteBan({ target, onDone, onBack }: { target: { id: string; name: string; banned: boolean }; onDone: () => void; onBack: () => void }) {
  const qc = useQueryClient();
  const { t } = useTranslation('palette');
  return (
    <div className="stack palette-form">
      <h2>{t('Ban {{name}}', { name: target.name })}</h2>
      <BanForm
        name={target.name}
        onSubmit={(body) => dataOf(client.POST('/users/{id}/ban', { params: { path: { id: target.id } }, body }))}
        cancelLabel={t('Back')}
        onCancel={onBack}
        onDone={(r) => {
          // Undo is an unban, as on the user's page: for a new ban only
          // (undoing a ban again would lift the earlier one too).
          closedToast(t('{{name}} banned', { name: target.name }), { ...r, sessionsClosed: r.sessionsClosed ?? 0 }, target.banned ? undefined : {
            run: () => client.POST('/users/{id}/unban', { params: { path: { id: target.id } } }),
            done: t('{{name}} unbanned', { name: target.name }),
            after: () => {
              void qc.invalidateQueries({ queryKey: ['row', 'users', target.id] });
              void qc.invalidateQueries({ queryKey: ['list', 'users'] });
            },
          });
          void qc.invalidateQueries({ queryKey: ['row', 'users', target.id] });
          void qc.invalidateQueries({ queryKey: ['list', 'users'] });
          onDone();
        }}
      />
    </div>
  );
}
