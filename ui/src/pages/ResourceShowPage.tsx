import * as Tabs from '@radix-ui/react-tabs';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { Copy, Pencil, Plus, Trash2 } from 'lucide-react';
import { toast } from 'sonner';
import { Trans, useTranslation } from 'react-i18next';
import { ApiError, client, errorText, isStale, dataOf, pageOf, query, rowParams, seg, staleText, versioned, writeHeaders, type Column, type ResourceMeta, type Row } from '../api';
import { rowOf, rowQuery, useCatalog, useMe, useResourceMeta, useRoomsEnabled } from '../queries';
import { FieldValue, namedPayload, ZoneNote } from '../components/CellValue';
import { useConfirm } from '../components/ConfirmDialog';
import { DataTable } from '../components/DataTable';
import { ErrorNote, Loading } from '../components/Status';
import { NotAllowed } from '../components/NotAllowed';
import { ResourceIcon } from '../icons';
import { formatNumber } from '../i18n';
import { rowLabel, singular, usePageTitle } from '../names';
import { banField, idField, listColumns, pick } from './columns';
import { UserModeration, ActiveSessions, BanState } from './UserModeration';
import { AuditEntryActions, RowHistory } from './RowHistory';
import { AuditPayload } from '../components/AuditPayload';
import { useAuditEntryName } from '../auditWords';
import { isErased, mayChangeUser } from './userAccess';
import { canUndoDelete, deletedWhere, undoDelete } from './undoDelete';
import { undoAction, undoSeconds } from '../components/closedToast';
import { RestoreButton, isDeleted } from './softDelete';
import { useResourceAction } from '../components/useResourceAction';
import { useReportsOn } from '../reports';
import { PlayerReports } from './ReportsPage';

export function ResourceShowPage() {
  const { resource, id } = useParams();
  const meta = useResourceMeta(resource);
  if (!meta || id === undefined) return <NotAllowed resource={resource ?? ''} />;
  if (!meta.permissions.read) return <NotAllowed resource={meta.name} label={meta.label} operation="view" />;
  return <ResourceShow key={meta.name + '/' + id} meta={meta} id={id} />;
}

function ResourceShow({ meta, id }: { meta: ResourceMeta; id: string }) {
  const navigate = useNavigate();
  const qc = useQueryClient();
  const { t } = useTranslation('row');
  const [dialog, ask] = useConfirm();
  const params = rowParams(meta.name, id);
  const row = useQuery({ ...rowQuery(meta.name, id), select: rowOf });
  // version is the ETag of the row as the page shows it: a delete or a
  // restore from here acts on that version only.
  const version = () => qc.getQueryData(rowQuery(meta.name, id).queryKey)?.etag;
  // An audit entry is named by what it records and when; its number is
  // on the heading's hover.
  const entryName = useAuditEntryName();
  const title = meta.name === 'adminAudit' && row.data ? entryName(row.data) : rowLabel(meta, id, row.data);
  // Edit and Delete on a row that is there; on users, where the server
  // would allow them.
  const me = useMe();
  const erased = isErased(meta, row.data);
  const mayChange = row.data !== undefined && (!meta.users || mayChangeUser(me.data, id, row.data));
  const ban = banField(meta);
  const gone = row.error instanceof ApiError && row.error.status === 404;
  usePageTitle(row.data ? `${title} · ${meta.label}` : meta.label);

  // The row's own actions (Disband), as its list row's menu runs them;
  // one that removed the row leaves for the list.
  const runAction = useResourceAction(meta, ask);
  const rowActions = meta.actions.filter((a) => a.perRow);
  const act = async (a: (typeof rowActions)[number]) => {
    if (!(await runAction(a, id))) return;
    const gone = await client.GET('/{resource}/{id}', { params }).then(() => false, (err: unknown) => err instanceof ApiError && err.status === 404);
    if (gone) navigate('/' + seg(meta.name));
  };

  const remove = async () => {
    if (!(await ask({ title: t('Delete {{thing}} “{{title}}”?', { thing: singular(meta.label), title }), description: deletedWhere(meta), confirmLabel: t('Delete'), danger: true }))) return;
    try {
      const deleted = await versioned(client.DELETE('/{resource}/{id}', { params, headers: writeHeaders({ ifMatch: version() }) }));
      // Undo brings the row back and opens it again.
      const undo = canUndoDelete(meta)
        ? { duration: undoSeconds * 1000, action: undoAction({ run: () => undoDelete(meta, id, me.data?.userId, deleted.etag), done: t('{{title}} restored', { title }), after: () => {
            void qc.invalidateQueries({ queryKey: ['list', meta.name] });
            void qc.invalidateQueries({ queryKey: ['row', meta.name, id] });
            void qc.invalidateQueries({ queryKey: ['history', meta.name, id] });
          } }) }
        : {};
      toast.success(t('{{title}} deleted', { title }), undo);
      await qc.invalidateQueries({ queryKey: ['list', meta.name] });
      navigate('/' + seg(meta.name));
    } catch (err) {
      if (isStale(err)) {
        toast.error(staleText('deleted'));
        await qc.invalidateQueries({ queryKey: ['row', meta.name, id] });
        return;
      }
      toast.error(errorText(err));
    }
  };

  return (
    <section>
      <div className="page-title">
        <h1>
          <ResourceIcon name={meta.icon} size={20} /> <Link to={'/' + seg(meta.name)}>{meta.label}</Link> / <span title={id}>{title}</span>
        </h1>
        <div className="toolbar">
          {meta.name === 'adminAudit' && row.data && <AuditEntryActions entry={row.data} />}
          {mayChange && !isDeleted(meta, row.data) && rowActions.map((a) => (
            <button key={a.name} type="button" onClick={() => void act(a)}>
              {a.label}
            </button>
          ))}
          {meta.permissions.update && mayChange && !erased && !isDeleted(meta, row.data) && (
            <Link to={`/${seg(meta.name)}/${seg(id)}/edit`} className="button">
              <Pencil size={14} aria-hidden="true" /> {t('Edit')}
            </Link>
          )}
          <RestoreButton meta={meta} id={id} row={row.data} version={version} />
          {meta.permissions.delete && mayChange && !isDeleted(meta, row.data) && (
            <button type="button" className="danger" onClick={() => void remove()}>
              <Trash2 size={14} aria-hidden="true" /> {t('Delete')}
            </button>
          )}
        </div>
      </div>
      {row.isPending ? (
        <Loading />
      ) : gone ? (
        <p className="muted" role="status">
          <Trans t={t} ns="row" values={{ thing: singular(meta.label).toLowerCase(), resource: meta.label, id }}
            components={{ audit: <Link to={'/adminAudit?' + new URLSearchParams({ resource: meta.name, target_id: id })} /> }}
            i18nKey="No {{thing}} has the id “{{id}}”: it was deleted, or the link is wrong. <audit>Its audit entries</audit> show what happened to it; a delete's entry can restore the row." />
        </p>
      ) : row.isError ? (
        <ErrorNote error={row.error} />
      ) : (
        <>
          {isDeleted(meta, row.data) && (
            <p className="muted" role="status">
              {meta.permissions.update
                ? t('This row is deleted: the list shows it in its Deleted view only. Restore brings it back.')
                : t('This row is deleted: the list shows it in its Deleted view only.')}
            </p>
          )}
          <dl className="fields">
            {showOrder(pick(meta, meta.showFields)).map((c) => idField(c) ? (
              // Ids are there to copy, not to read first: last, muted.
              <div key={c.name} className="field field-id">
                <dt>{c.label}</dt>
                <dd><span className="mono muted">{String(row.data[c.name] ?? '')}</span> <CopyButton text={String(row.data[c.name] ?? '')} label={c.label} /></dd>
              </div>
            ) : (
              <div key={c.name} className={'field' + (meta.name === 'adminAudit' && c.name === 'payload' ? ' field-wide' : '')}>
                <dt>{c.label}<ZoneNote col={c} /></dt>
                <dd>
                  {c.name === meta.banColumn ? (
                    <BanState ban={row.data[c.name]} short />
                  ) : c.name === meta.emailColumn && row.data[c.name] == null ? (
                    // A guest player, without an email.
                    <span className="muted">{t('no email')}</span>
                  ) : meta.name === 'adminAudit' && c.name === 'payload' ? (
                    <AuditPayload payload={namedPayload(row.data)} entry={row.data} />
                  ) : (
                    <FieldValue col={c} row={row.data} fileName={`${meta.name}-${id}-${c.name}.bin`} />
                  )}
                </dd>
              </div>
            ))}
            {ban && (
              // The server's _ban (a game's until-column): no column of
              // the table, so shown after them.
              <div className="field">
                <dt>{ban.label}</dt>
                <dd><BanState ban={row.data[ban.name]} short /></dd>
              </div>
            )}
          </dl>
          {meta.users && meta.permissions.update && <UserModeration id={id} row={row.data} ban={meta.banColumn ? row.data[meta.banColumn] : undefined} />}
          <RelationTabs meta={meta} id={id} row={row.data} />
        </>
      )}
      {dialog}
    </section>
  );
}

// RelationTabs shows the rows related through each "many" relation, and
// for users the live sessions.
function RelationTabs({ meta, id, row }: { meta: ResourceMeta; id: string; row: Row }) {
  const rooms = useRoomsEnabled();
  const { t } = useTranslation('row');
  // The open tab is in the URL (?tab=), so a reload or coming back keeps it.
  const [params, setParams] = useSearchParams();
  const catalog = useCatalog();
  // Only relations into resources the operator may list: a mod's catalog
  // leaves out what is beyond their scopes, and the server refuses those.
  const many = meta.relations.filter((r) => r.kind === 'many' && catalog.data?.some((t) => t.name === r.target && t.permissions.list));
  const sessions = !!meta.users && rooms;
  const reports = useReportsOn();
  const reportsTab = !!meta.users && reports.on === true;
  // History: the row's audit entries, for operators (they name operators).
  const me = useMe();
  const history = (me.data?.role === 'admin' || me.data?.role === 'mod') && meta.name !== 'adminAudit';
  const counts = useQuery({
    queryKey: ['counts', meta.name, id],
    // _estimated names the tabs whose count ran out of time and is the
    // statistics' estimate.
    queryFn: () => dataOf(client.GET('/{resource}/{id}/_counts', { params: rowParams(meta.name, id) })),
    enabled: many.length > 0 || sessions,
  });
  const tabs = [
    ...many.map((r) => ({ key: r.name, label: r.label })),
    ...(sessions ? [{ key: '_sessions', label: t('Active sessions') }] : []),
    ...(reportsTab ? [{ key: '_reports', label: t('Reports') }] : []),
    ...(history ? [{ key: '_history', label: t('History') }] : []),
  ];
  if (tabs.length === 0) return null;
  const count = (key: string) => {
    const n = counts.data?.[key === '_sessions' ? 'activeSessions' : key];
    if (typeof n !== 'number') return undefined;
    return counts.data?._estimated?.includes(key) ? `≈${formatNumber(n)}` : formatNumber(n);
  };
  const asked = params.get('tab');
  const open = tabs.some((tab) => tab.key === asked) ? (asked as string) : tabs[0]?.key;
  const choose = (key: string) =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      if (key === tabs[0]?.key) next.delete('tab');
      else next.set('tab', key);
      return next;
    }, { replace: true });
  return (
    <Tabs.Root className="tabs" value={open} onValueChange={choose}>
      <Tabs.List className="tab-list" aria-label={t('Related')}>
        {tabs.map((tab) => (
          <Tabs.Trigger key={tab.key} value={tab.key} className="tab">
            {tab.label}
            {count(tab.key) !== undefined && <span className="count">{count(tab.key)}</span>}
          </Tabs.Trigger>
        ))}
      </Tabs.List>
      {tabs.map((tab) => {
        const rel = many.find((r) => r.name === tab.key);
        return (
          <Tabs.Content key={tab.key} value={tab.key} className="tab-panel">
            {tab.key === '_sessions' ? <ActiveSessions userId={id} /> : tab.key === '_reports' ? <PlayerReports playerId={id} /> : tab.key === '_history' ? <RowHistory meta={meta} id={id} /> : rel ? <RelatedRows meta={meta} id={id} row={row} name={rel.name} target={rel.target} fk={rel.fk} /> : null}
          </Tabs.Content>
        );
      })}
    </Tabs.Root>
  );
}

// RelatedRows is one tab: the first rows, and when there are more a link
// to the target's list filtered to this parent; "Add …" opens the
// target's form with the parent filled in.
function RelatedRows({ meta, id, row, name, target, fk }: { meta: ResourceMeta; id: string; row: Row; name: string; target: string; fk: string }) {
  const catalog = useCatalog();
  const { t } = useTranslation('row');
  const targetMeta = catalog.data?.find((r) => r.name === target);
  const q = useQuery({
    queryKey: ['relation', meta.name, id, name],
    queryFn: () => pageOf(client.GET('/{resource}/{id}/relations/{relation}', { params: { path: { resource: meta.name, id, relation: name } }, querySerializer: query(new URLSearchParams({ _start: '0', _end: '50' })) })),
  });
  if (!targetMeta) return <ErrorNote error={t('Unknown resource "{{name}}".', { name: target })} />;
  if (q.isPending) return <Loading />;
  if (q.isError) return <ErrorNote error={q.error} />;
  // The parent's key as the child's foreign key holds it: only a parent
  // with one key column can be named in a filter or a form.
  const key = meta.primaryKey.length === 1 ? row[meta.primaryKey[0] ?? ''] : undefined;
  const parent = key === undefined || key === null || !fk ? undefined : String(key);
  const thing = singular(targetMeta.label).toLowerCase();
  const parentName = rowLabel(meta, id, row);
  return (
    <>
      {parent !== undefined && targetMeta.permissions.create && !isErased(meta, row) && (
        <div className="toolbar tab-toolbar">
          <Link className="button" to={`/${seg(target)}/new?${new URLSearchParams({ [fk]: parent, ['_label.' + fk]: parentName })}`}>
            <Plus size={14} aria-hidden="true" /> {t('Add {{thing}} for {{parent}}', { thing, parent: parentName })}
          </Link>
        </div>
      )}
      <DataTable meta={targetMeta} columns={listColumns(targetMeta)} rows={q.data.rows} />
      {q.data.total > q.data.rows.length && (
        <p className="muted">
          {t('Showing {{shown}} of {{total}}.', { shown: formatNumber(q.data.rows.length), total: (q.data.estimated ? '≈' : '') + formatNumber(q.data.total) })}
          {parent !== undefined && (
            <> <Link to={`/${seg(target)}?${new URLSearchParams({ [fk + '_eq']: parent })}`}>
              {q.data.estimated
                ? t('See all in {{resource}}', { resource: targetMeta.label })
                : t('See all {{total}} in {{resource}}', { total: formatNumber(q.data.total), resource: targetMeta.label })}
            </Link></>
          )}
        </p>
      )}
    </>
  );
}

// showOrder is the show page's fields: the panel's machinery (technical
// columns) left out, ids after the fields a person reads.
export function showOrder(cols: Column[]): Column[] {
  const shown = cols.filter((c) => !c.technical);
  return [...shown.filter((c) => !idField(c)), ...shown.filter(idField)];
}

// CopyButton copies text, saying so in a toast.
function CopyButton({ text, label }: { text: string; label: string }) {
  const { t } = useTranslation('row');
  return (
    <button type="button" className="icon-button" aria-label={t('Copy {{field}}', { field: label })} title={t('Copy {{field}}', { field: label })}
      onClick={() => void navigator.clipboard?.writeText(text).then(() => toast.success(t('{{field}} copied', { field: label })), () => toast.error(t('Could not copy')))}>
      <Copy size={14} aria-hidden="true" />
    </button>
  );
}
