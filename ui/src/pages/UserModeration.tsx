import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { Mail } from 'lucide-react';
import { toast } from 'sonner';
import { Trans, useTranslation } from 'react-i18next';
import { client, errorText, dataOf, pageOf, query, seg, type Row } from '../api';
import { rowOf, rowQuery, useCatalog, useFeatures, useMe, useResourceMeta, useRoomsEnabled, useUsersMeta } from '../queries';
import { rowLabel } from '../names';
import { useConfirm, type ConfirmOptions } from '../components/ConfirmDialog';
import type { BanInfo } from '../components/CellValue';
import { formatTime, Time } from '../time';
import { ErrorNote, Loading } from '../components/Status';
import { closedToast } from '../components/closedToast';
import { DataRequests } from './DataRequests';
import { RowScopeControl } from './RowScope';
import { BanDialog } from '../components/BanForm';
import { isErased, mayChangeUser } from './userAccess';

// BanState says a user's ban in words: "Banned by Player 01 until 24 Nov,
// 14:00 — reason …", "Ban ended …" once its end has passed.
// short is the show page's field: whether and until when, no more.
export function BanState({ ban, short = false }: { ban: unknown; short?: boolean }) {
  const { t } = useTranslation('moderation');
  const meta = useUsersMeta();
  const b = (ban && typeof ban === 'object' ? ban : {}) as BanInfo;
  const by = useQuery({
    ...rowQuery(meta?.name ?? '', b.bannedBy ?? ''),
    select: rowOf,
    enabled: !short && !!b.bannedBy && !!meta?.permissions.read,
    retry: false,
  });
  if (ban === null || ban === undefined) return short ? <span className="null">—</span> : <p className="ban-state">{t('Not banned.')}</p>;
  const ended = !!b.until && new Date(b.until).getTime() <= Date.now();
  const date = b.until ? formatTime(b.until) : '';
  if (short) {
    return <span className="ban-state">{!b.until ? t('Banned for good') : ended ? t('Ban ended on {{date}}', { date }) : t('Banned until {{date}}', { date })}</span>;
  }
  // Named once the banning operator's row is in; "another operator" when it
  // cannot be read (deleted, or beyond the viewer's role). It is only said
  // after "by": a language that declines it translates it in that case.
  const name = !b.bannedBy ? '' : by.data && meta ? rowLabel(meta, b.bannedBy, by.data) : by.isFetching ? '' : t('another operator');
  const who = { strong: <strong />, who: b.bannedBy && meta?.permissions.read ? <Link to={'/users/' + seg(b.bannedBy)} /> : <></> };
  const values = { date, name };
  return (
    <p className="ban-state banned" data-testid="ban-state">
      {!name ? (
        !b.until ? <Trans t={t} i18nKey="<strong>Banned</strong> for good" components={who} />
          : ended ? <Trans t={t} i18nKey="<strong>Ban ended</strong> on {{date}}" values={values} components={who} />
          : <Trans t={t} i18nKey="<strong>Banned</strong> until {{date}}" values={values} components={who} />
      ) : !b.until ? <Trans t={t} i18nKey="<strong>Banned</strong> by <who>{{name}}</who> for good" values={values} components={who} />
        : ended ? <Trans t={t} i18nKey="<strong>Ban ended</strong> by <who>{{name}}</who> on {{date}}" values={values} components={who} />
        : <Trans t={t} i18nKey="<strong>Banned</strong> by <who>{{name}}</who> until {{date}}" values={values} components={who} />}
      {b.bannedAt && <span className="muted"> {t('(since {{date}})', { date: formatTime(b.bannedAt) })}</span>}
      {/* A reason of blanks is none: no empty "— " after the date. */}
      {b.reason?.trim() ? <> — {b.reason.trim()}</> : <span className="muted"> {t('— no reason given')}</span>}
    </p>
  );
}

// UserModeration is the users detail page's Ban, Unban, Revoke sessions
// and (admins) Send invite; Unban, Revoke and the invite ask first. None
// is offered where the server would refuse it: on one's own account, and
// to a mod on an operator's.
export function UserModeration({ id, row, ban }: { id: string; row: Row; ban: unknown }) {
  const { t } = useTranslation('moderation');
  const qc = useQueryClient();
  const me = useMe();
  const features = useFeatures();
  const [dialog, ask] = useConfirm();
  const [banning, setBanning] = useState(false);
  const user = { params: { path: { id } } };
  const who = useUsersMeta();
  const name = who ? rowLabel(who, id, row) : id;
  const refresh = () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: ['row', 'users', id] }),
      qc.invalidateQueries({ queryKey: ['history', 'users', id] }),
      qc.invalidateQueries({ queryKey: ['relation', 'users', id] }),
      qc.invalidateQueries({ queryKey: ['counts', 'users', id] }),
      qc.invalidateQueries({ queryKey: ['list', 'users'] }),
      // A ban, a revoke or a kick closes the player's live sessions: the
      // tab and the rooms say so now, not at their next poll.
      qc.invalidateQueries({ queryKey: ['rooms'] }),
    ]);
  const run = async (op: 'unban' | 'revoke-sessions' | 'invite', done: string) => {
    try {
      const r = await dataOf(op === 'invite' ? client.POST('/users/{id}/invite', user) : op === 'unban' ? client.POST('/users/{id}/unban', user) : client.POST('/users/{id}/revoke-sessions', user));
      closedToast(done, r);
    } catch (err) {
      toast.error(errorText(err));
    }
    await refresh();
  };
  const confirmThen = async (o: ConfirmOptions, op: 'unban' | 'revoke-sessions' | 'invite', done: string) => {
    if (await ask(o)) await run(op, done);
  };
  const banned = ban !== null && ban !== undefined;
  const self = me.data?.userId === id;
  const mayChange = mayChangeUser(me.data, id, row);
  // A guest player has no email (NULL): no invite; the erase is confirmed
  // with their id instead.
  const email = row[who?.emailColumn ?? 'email'];
  const hasEmail = typeof email === 'string';
  // Without an email column (features.email false) an erase is
  // confirmed with the username, else the id.
  const noEmailColumn = features.email === false;
  const username = who?.usernameColumn ? row[who.usernameColumn] : undefined;
  const confirmWith = hasEmail ? email : noEmailColumn && typeof username === 'string' ? username : null;
  const erased = who ? isErased(who, row) : false;
  const erasedAt = erased && ban && typeof ban === 'object' ? (ban as BanInfo).bannedAt : undefined;
  return (
    <section className="moderation" aria-labelledby="moderation-title">
      <h2 id="moderation-title">{t('Moderation')}</h2>
      {erased ? (
        // An erased account cannot sign in, and has nothing left to ban,
        // invite, erase or give a role: only its id and rows remain.
        <p className="muted" data-testid="erased-note">
          {erasedAt
            ? t("This player's personal data was erased on {{date}}: the account cannot sign in again, and there is nothing left to moderate.", { date: formatTime(erasedAt) })
            : t("This player's personal data was erased: the account cannot sign in again, and there is nothing left to moderate.")}
        </p>
      ) : (
        <>
          {features.ban && ban !== undefined && <BanState ban={ban} />}
          {self ? (
            <p className="muted">{t('This is your own account: another operator moderates it.')}</p>
          ) : !mayChange ? (
            <p className="muted">{t("An admin moderates operators' accounts.")}</p>
          ) : (
            <div className="toolbar">
              {features.ban && <button type="button" className="danger" onClick={() => setBanning(true)}>{banned ? t('Ban again') : t('Ban')}</button>}
              {features.ban && banned && (
                <button
                  type="button"
                  onClick={() => void confirmThen({ title: t('Unban {{name}}?', { name }), description: t('They can sign in and join rooms again.'), confirmLabel: t('Unban') }, 'unban', t('{{name}} unbanned', { name }))}
                >
                  {t('Unban')}
                </button>
              )}
              {features.revokeSessions && (
                <button
                  type="button"
                  onClick={() =>
                    void confirmThen(
                      {
                        title: t('Revoke the sessions of {{name}}?', { name }),
                        description: t('Every session ends and their live connections close; they can sign in again.'),
                        confirmLabel: t('Revoke sessions'),
                        danger: true,
                      },
                      'revoke-sessions',
                      t('Sessions of {{name}} revoked', { name }),
                    )
                  }
                >
                  {t('Revoke sessions')}
                </button>
              )}
              {me.data?.role === 'admin' && hasEmail && (
                <button
                  type="button"
                  title={t('Email them a link to set their password (valid 15 minutes)')}
                  onClick={() =>
                    void confirmThen(
                      {
                        title: t('Send an invite to {{name}}?', { name }),
                        description: t('A link to set a password is delivered to their email address (valid 15 minutes).'),
                        confirmLabel: t('Send invite'),
                      },
                      'invite',
                      t('Invite sent'),
                    )
                  }
                >
                  <Mail size={14} aria-hidden="true" /> {t('Send invite')}
                </button>
              )}
            </div>
          )}
          {!self && mayChange && me.data?.role === 'admin' && !hasEmail && (
            <p className="muted" data-testid="no-email-note">
              {noEmailColumn ? t('Accounts here have no email: invites and reset links, which go by email, are off.') : t('This account has no email: no invite or reset link can be sent.')}
            </p>
          )}
          {!self && <RoleControl userId={id} name={name} />}
          {!self && <RowScopeControl userId={id} name={name} />}
          {!self && me.data?.role === 'admin' && features.ban && (hasEmail || email === null || noEmailColumn) && (
            <DataRequests id={id} name={name} email={confirmWith} onErased={() => void refresh()} />
          )}
        </>
      )}
      {banning && (
        <BanDialog
          name={name}
          onSubmit={(body) => dataOf(client.POST('/users/{id}/ban', { ...user, body }))}
          onClose={() => setBanning(false)}
          onDone={(r) => {
            setBanning(false);
            // Undo is an unban: offered for a new ban only (undoing a
            // ban again would lift the earlier one too).
            closedToast(t('{{name}} banned', { name }), { ...r, sessionsClosed: r.sessionsClosed ?? 0 }, banned ? undefined : {
              run: () => client.POST('/users/{id}/unban', user),
              done: t('{{name}} unbanned', { name }),
              after: refresh,
            });
            void refresh();
          }}
        />
      )}
      {dialog}
    </section>
  );
}

interface RoleRow {
  user_id: string;
  role: string;
  scopes: string[] | null;
}

// RoleControl sets a user's role and, for a mod, the resources in its
// scopes, through the roles resource (admins only: only they have it).
function RoleControl({ userId, name }: { userId: string; name: string }) {
  const { t } = useTranslation('moderation');
  const roles = useResourceMeta('roles');
  const catalog = useCatalog();
  const rooms = useRoomsEnabled();
  const qc = useQueryClient();
  const canWrite = !!roles?.permissions.read && !!roles.permissions.create && !!roles.permissions.update;
  const current = useQuery({
    // A list filtered on the key, not GET /roles/:id: a user without a
    // roles row is a plain player, not an error. Its own key under the
    // roles row's, so the roles page never finds this null in its cache.
    queryKey: ['row', 'roles', userId, 'orNull'],
    queryFn: async () => ((await pageOf(client.GET('/{resource}', { params: { path: { resource: 'roles' } }, querySerializer: query(new URLSearchParams({ user_id: userId })) }))).rows[0] as RoleRow | undefined) ?? null,
    enabled: canWrite,
  });
  const [edit, setEdit] = useState<{ role: string; scopes: string[] } | null>(null);
  // No If-Match: the roles row is read from a list, which carries no
  // version; the control shows all it writes (the role and the scopes).
  const save = useMutation({
    mutationFn: (v: { role: string; scopes: string[] }) =>
      dataOf(current.data ? client.PATCH('/{resource}/{id}', { params: { path: { resource: 'roles', id: userId } }, body: v }) : client.POST('/{resource}', { params: { path: { resource: 'roles' } }, body: { user_id: userId, ...v } })).then((r) => r as unknown as RoleRow),
    onSuccess: (r) => {
      qc.setQueryData(['row', 'roles', userId, 'orNull'], r);
      void qc.invalidateQueries({ queryKey: ['list', 'roles'] });
      setEdit(null);
      toast.success(r.role === 'admin' ? t('{{name}} is now an admin', { name }) : r.role === 'mod' ? t('{{name}} is now a mod', { name }) : t('{{name}} is now a player', { name }));
    },
  });
  if (!canWrite) return null;
  if (current.isPending) return <Loading />;
  if (current.isError) return <ErrorNote error={current.error} />;
  const saved = { role: current.data?.role ?? 'user', scopes: current.data?.scopes ?? [] };
  const v = edit ?? saved;
  const resources = [
    ...(rooms ? [{ name: 'rooms', label: t('Live rooms') }] : []),
    ...(catalog.data ?? []).filter((r) => r.name !== 'roles' && r.name !== 'adminAudit'),
  ];
  const changed = v.role !== saved.role || [...v.scopes].sort().join() !== [...saved.scopes].sort().join();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ role: v.role, scopes: v.role === 'mod' ? v.scopes : saved.scopes });
  };
  return (
    <form className="role-control" onSubmit={submit} aria-labelledby="role-title">
      <h3 id="role-title">{t('Panel role')}</h3>
      <div className="inline-field">
        <label htmlFor="role-select">{t('Role')}</label>
        <select id="role-select" name="role" value={v.role} onChange={(e) => setEdit({ ...v, role: e.target.value })}>
          <option value="user">{t('Player (no panel access)')}</option>
          <option value="mod">{t('Mod (the resources below)')}</option>
          <option value="admin">{t('Admin (everything)')}</option>
        </select>
      </div>
      {v.role === 'mod' && (
        <fieldset className="scopes">
          <legend>{t('Scopes: what this mod may list, read and update')}</legend>
          {resources.map((r) => (
            <label key={r.name} className="check">
              <input
                type="checkbox"
                name="scopes"
                value={r.name}
                checked={v.scopes.includes(r.name)}
                onChange={(e) => setEdit({ ...v, scopes: e.target.checked ? [...v.scopes, r.name] : v.scopes.filter((s) => s !== r.name) })}
              />
              {r.label}
            </label>
          ))}
        </fieldset>
      )}
      {save.isError && <p className="form-error" role="alert">{errorText(save.error)}</p>}
      <div className="toolbar">
        <button type="submit" className="primary" disabled={!changed || save.isPending}>{t('Save role')}</button>
        {changed && <button type="button" onClick={() => setEdit(null)}>{t('Cancel')}</button>}
      </div>
    </form>
  );
}

// ActiveSessions lists the live rooms a user is in: each room by its name
// (linked to its inspector), the session's id after it, and when they
// joined.
export function ActiveSessions({ userId }: { userId: string }) {
  const { t } = useTranslation('moderation');
  const q = useQuery({
    queryKey: ['rooms', 'by-user', userId],
    queryFn: () => dataOf(client.GET('/rooms/by-user/{userId}', { params: { path: { userId } } })),
    refetchInterval: 3000,
  });
  if (q.isPending) return <Loading />;
  if (q.isError) return <ErrorNote error={q.error} />;
  if (q.data.length === 0) return <p className="muted">{t('No active sessions.')}</p>;
  const nodes = q.data.some((s) => typeof s.node === 'string' && s.node !== '');
  return (
    <div className="table-wrap">
      <table className="data-table" aria-label={t('Active sessions')}>
        <thead>
          <tr><th>{t('Room')}</th><th>{t('Joined')}</th>{nodes && <th>{t('Node')}</th>}<th>{t('Session')}</th></tr>
        </thead>
        <tbody>
          {q.data.map((s, i) => {
            const room = String(s.roomId);
            const name = typeof s.roomName === 'string' && s.roomName ? s.roomName : room;
            return (
              <tr key={String(s.sessionId ?? i)}>
                <td><Link to={'/rooms/' + seg(room)} title={room}>{name}</Link>{name !== room && <span className="muted mono id-note"> {room}</span>}</td>
                <td>{s.joinedAt ? <Time value={s.joinedAt} /> : '—'}</td>
                {nodes && <td>{String(s.node ?? '')}</td>}
                <td className="mono muted id-note">{String(s.sessionId ?? '')}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
