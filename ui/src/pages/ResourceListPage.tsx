import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { Ban, Download, Plus, Search, Trash2 } from 'lucide-react';
import { toast } from 'sonner';
import { useTranslation } from 'react-i18next';
import { API, client, errorText, pageOf, query, rowParams, seg, versioned, type ResourceMeta, type Row } from '../api';
import { useFeatures, useMe, useResourceMeta } from '../queries';
import { rowId } from '../rowId';
import { ResourceIcon } from '../icons';
import { DataTable, focusRow, type SortState } from '../components/DataTable';
import { FilterBar, filtersOf, zoned } from '../components/FilterBar';
import { Pagination, pageSizes } from '../components/Pagination';
import { RowMenu, type MenuItem } from '../components/RowMenu';
import { useConfirm, type ConfirmOptions } from '../components/ConfirmDialog';
import { BanDialog } from '../components/BanForm';
import { useResourceAction } from '../components/useResourceAction';
import { ErrorNote, Loading } from '../components/Status';
import { NotAllowed } from '../components/NotAllowed';
import { ApiHelp } from '../components/ApiHelp';
import { listColumns, listFields, tableColumns } from './columns';
import { rowLabel, singular, usePageTitle } from '../names';
import { bulkDelete, bulkSummary, undoAll } from './bulkDelete';
import { canUndoDelete, deletedWhere, undoDelete } from './undoDelete';
import { undoAction, undoSeconds } from '../components/closedToast';
import { bulkModerate, bulkOutcome, type BulkAnswer } from './userBulk';
import { erasedLabel, isErased, mayChangeUser, mayModerateUser } from './userAccess';
import { DeletedFilter, isDeleted, useRestore } from './softDelete';
import { ScopeNote } from './RowScope';

// The audit log's filters (with their pickers) load with the audit log,
// not with the first page.
const AuditFilters = lazy(() => import('./AuditFilters').then((m) => ({ default: m.AuditFilters })));

// The URL's page, size and after are the UI's own; everything else in it
// is the server's list query (filters, _q, _sort, _count).
const uiParams = ['page', 'size', 'after'];

// Offset pages go as deep as the server's MaxOffset (query.MaxOffset);
// past it, where the sort allows, the list pages by cursor: the URL's
// after is the page's cursor, the X-Next-Cursor of the page before it.
// The cursors of the pages seen are kept for Previous.
const maxOffset = 10_000;
const cursorsSeen = new Map<string, string>();

function exportQuery(params: URLSearchParams, meta: ResourceMeta): string {
  const p = zoned(params, meta.columns);
  for (const k of [...uiParams, '_count']) p.delete(k);
  // A person opens it: columns headed by their labels, a ban in words.
  p.set('_headers', 'labels');
  const qs = p.toString();
  return qs ? '?' + qs : '';
}

export function ResourceListPage() {
  const { resource } = useParams();
  const meta = useResourceMeta(resource);
  if (!meta) return <NotAllowed resource={resource ?? ''} />;
  if (!meta.permissions.list) return <NotAllowed resource={meta.name} label={meta.label} operation="list" />;
  return <ResourceList key={meta.name} meta={meta} />;
}

function ResourceList({ meta }: { meta: ResourceMeta }) {
  // rows: the row actions' texts (deleted, restored, unbanned), shared
  // with the row page.
  const { t } = useTranslation(['list', 'rows', 'moderation']);
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [dialog, ask] = useConfirm();
  const runAction = useResourceAction(meta, ask);
  const columns = listColumns(meta);
  usePageTitle(meta.label);
  const sizeParam = Number(params.get('size'));
  const pageSize = (pageSizes as readonly number[]).includes(sizeParam) ? sizeParam : pageSizes[0];
  const after = params.get('after') ?? '';
  const asked = Math.max(0, Number(params.get('page') ?? 0) || 0);
  // A deep page comes by its cursor; without one, the deepest offset page.
  const byCursor = after !== '' && asked * pageSize > maxOffset;
  const page = byCursor || asked * pageSize <= maxOffset ? asked : Math.floor(maxOffset / pageSize);

  const apiParams = zoned(params, meta.columns);
  for (const k of uiParams) apiParams.delete(k);
  const listBase = apiParams.toString(); // the list, whatever its page
  const pagingKey = (n: number) => `${meta.name}?${listBase}#${pageSize}:${n}`;
  if (byCursor) {
    cursorsSeen.set(pagingKey(page), after);
    apiParams.set('_limit', String(pageSize));
    apiParams.set('_cursor', after);
    // A keyset page counts only when asked: the estimate keeps "of about N".
    if (!apiParams.has('_count')) apiParams.set('_count', 'estimate');
  } else {
    apiParams.set('_start', String(page * pageSize));
    apiParams.set('_end', String((page + 1) * pageSize));
  }
  // Only what the page shows and needs: a document column it leaves out
  // is not read nor sent.
  apiParams.set('_fields', listFields(meta, meta.softDeleteColumn ? params.get('_deleted') === 'only' : false).join(','));
  const list = useQuery({
    queryKey: ['list', meta.name, apiParams.toString()],
    queryFn: () => pageOf(client.GET('/{resource}', { params: { path: { resource: meta.name } }, querySerializer: query(apiParams) })),
    placeholderData: keepPreviousData,
    // Always refetched on arrival: what other screens did (a room kicked,
    // a user banned) shows up in the audit log and other lists at once.
    staleTime: 0,
  });

  // The selection is of rows on screen: it ends when the page, filter or
  // sort changes.
  const [selection, setSelection] = useState<{ key: string; ids: Set<string> }>({ key: '', ids: new Set() });
  const listKey = apiParams.toString();
  const selected = selection.key === listKey ? selection.ids : new Set<string>();
  const onSelect = useCallback(
    (ids: string[], on: boolean) =>
      setSelection((s) => {
        const next = new Set(s.key === listKey ? s.ids : []);
        for (const id of ids) {
          if (on) next.add(id);
          else next.delete(id);
        }
        return { key: listKey, ids: next };
      }),
    [listKey],
  );
  // Users get Ban, Unban and Revoke sessions where the operator sees
  // them: in each row's menu and for a selection.
  const features = useFeatures();
  const me = useMe();
  const moderates = !!meta.users && meta.permissions.update;
  const canBan = moderates && features.ban && !!meta.banColumn;
  const canRevoke = moderates && features.revokeSessions;
  // The Deleted view's rows are deleted already: only a bulk action selects there.
  const deletedView = !!meta.softDeleteColumn && params.get('_deleted') === 'only';
  const canSelect = meta.primaryKey.length > 0 && ((meta.permissions.delete && !deletedView) || meta.actions.some((a) => !a.perRow) || canBan || canRevoke);
  const [banning, setBanning] = useState<{ ids: string[]; name: string } | null>(null);
  // A page turned from the pagination (Next, Previous, Go) keeps the
  // focus in the list: on the first row of the new page once it is in,
  // not on the body the old page's button left it to.
  const [focusPage, setFocusPage] = useState<number | null>(null);
  useEffect(() => {
    if (focusPage === null || focusPage !== page || !list.data || list.isPlaceholderData) return;
    setFocusPage(null);
    focusRow(document.querySelector('.content [data-list]'), 0);
  }, [focusPage, page, list.data, list.isPlaceholderData]);
  const restore = useRestore(meta);

  const update = (fn: (p: URLSearchParams) => void) => {
    const next = new URLSearchParams(params);
    fn(next);
    setParams(next);
  };
  const sortParam = params.get('_sort');
  const sort: SortState | undefined = sortParam
    ? { field: sortParam, order: params.get('_order') === 'desc' ? 'desc' : 'asc' }
    : meta.defaultSort;
  const onSort = (field: string) =>
    update((p) => {
      const order = sort?.field === field && sort.order === 'asc' ? 'desc' : 'asc';
      p.set('_sort', field);
      p.set('_order', order);
      p.delete('page');
    });

  const perRow = meta.actions.filter((a) => a.perRow);
  const bulk = meta.actions.filter((a) => !a.perRow);
  const refreshList = () => qc.invalidateQueries({ queryKey: ['list', meta.name] });
  // nameOf names a row on screen by its label ("Player 07"), else its id.
  const nameOf = (id: string) => {
    const row = list.data?.rows.find((r) => rowId(meta, r) === id);
    return rowLabel(meta, id, row);
  };
  const remove = async (row: Row) => {
    const id = rowId(meta, row);
    const name = rowLabel(meta, id, row);
    if (!(await ask({ title: t('Delete {{resource}} “{{name}}”?', { resource: singular(meta.label), name }), description: deletedWhere(meta), confirmLabel: t('Delete'), danger: true }))) return;
    try {
      // No If-Match: a list's rows carry no version, and the operator asked
      // to delete the row they named, whatever it holds now (reading it
      // first would check it against a version they never saw either).
      const deleted = await versioned(client.DELETE('/{resource}/{id}', { params: rowParams(meta.name, id) }));
      const undo = canUndoDelete(meta) ? { action: undoAction({ run: () => undoDelete(meta, id, me.data?.userId, deleted.etag), done: t('{{name}} restored', { name }), after: refreshList }), duration: undoSeconds * 1000 } : {};
      toast.success(t('{{name}} deleted', { ns: 'rows', name }), undo);
      await refreshList();
    } catch (err) {
      toast.error(errorText(err));
    }
  };
  const removeSelected = async () => {
    const ids = [...selected];
    const n = ids.length;
    const names = new Map(ids.map((id) => [id, nameOf(id)]));
    const question = {
      title: t('Delete {{count, number}} rows of {{resource}}?', { count: n, resource: meta.label }),
      description: t('They are deleted one by one, each in the audit log. {{where}}', { where: deletedWhere(meta, true) }),
      confirmLabel: t('Delete {{count, number}}', { count: n }),
      danger: true,
    };
    if (!(await ask(question))) return;
    const r = await bulkDelete(meta.name, ids);
    const { title, description } = bulkSummary(r, (id) => names.get(id) ?? id);
    // Undo brings back what was deleted, one by one as it went.
    const undo = canUndoDelete(meta) && r.deleted.length > 0
      ? { action: undoAction({ run: () => undoAll(r.deleted, (id) => undoDelete(meta, id, me.data?.userId, r.versions.get(id))), done: r.deleted.length === 1 ? t('{{name}} restored', { name: names.get(r.deleted[0]!) }) : t('{{count, number}} rows restored', { count: r.deleted.length }), after: refreshList }) }
      : {};
    if (r.failed.length === 0) toast.success(title, { duration: undoSeconds * 1000, ...undo });
    else toast.error(title, { description, duration: 15_000, ...undo });
    // What failed stays selected, to retry or look at.
    setSelection({ key: listKey, ids: new Set(r.failed.map((f) => f.id)) });
    await qc.invalidateQueries({ queryKey: ['list', meta.name] });
  };
  // moderated reports a bulk answer and keeps selected what was not done,
  // to retry or look at.
  // A ban's answer offers Undo: the bulk unban of the ids it banned (not
  // those banned already, whose earlier ban stays).
  const moderated = async (a: BulkAnswer, op: 'ban' | 'unban' | 'revoke-sessions', names: Map<string, string>) => {
    const { text, ok } = bulkOutcome(a, (id) => names.get(id) ?? id);
    const banned = op === 'ban' ? Object.entries(a.results).filter(([, r]) => r === 'banned').map(([id]) => id) : [];
    const undo = banned.length > 0
      ? { action: undoAction({ run: () => bulkModerate('unban', banned), done: banned.length === 1 ? t('{{name}} unbanned', { ns: 'rows', name: names.get(banned[0]!) ?? banned[0] }) : t('{{count, number}} players unbanned', { ns: 'rows', count: banned.length }), after: refreshList }) }
      : {};
    if (ok) toast.success(text, banned.length > 0 ? { duration: undoSeconds * 1000, ...undo } : {});
    else toast.error(text, { duration: 15_000, ...undo });
    setSelection({ key: listKey, ids: new Set(Object.entries(a.results).filter(([, r]) => r === 'forbidden' || r === 'not_found').map(([id]) => id)) });
    await qc.invalidateQueries({ queryKey: ['list', meta.name] });
  };
  // confirmThen asks, then runs op on ids.
  const confirmThen = async (op: 'unban' | 'revoke-sessions', ids: string[], o: ConfirmOptions) => {
    if (!(await ask(o))) return;
    try {
      await moderated(await bulkModerate(op, ids), op, new Map(ids.map((id) => [id, nameOf(id)])));
    } catch (err) {
      toast.error(errorText(err));
    }
  };
  // revoke asks about one account by name, or about a selection by its
  // count.
  const revoke = (ids: string[], name?: string) =>
    confirmThen('revoke-sessions', ids, {
      title: name === undefined ? t('Revoke the sessions of {{count, number}} users?', { count: ids.length }) : t('Revoke the sessions of {{name}}?', { name }),
      description: t('Every session ends and their live connections close; they can sign in again.'),
      confirmLabel: t('Revoke sessions'),
      danger: true,
    });
  const unban = (ids: string[], name: string) =>
    confirmThen('unban', ids, { title: t('Unban {{name}}?', { name }), description: t('They can sign in and join rooms again.'), confirmLabel: t('Unban') });
  // A selection is unbanned in one request, each player audited as one
  // unban; those not banned are said so and left as they are.
  const unbanSelected = (ids: string[]) =>
    confirmThen('unban', ids, {
      title: t('Unban {{count, number}} users?', { count: ids.length }),
      description: t('Those banned can sign in and join rooms again; the others stay as they are.'),
      confirmLabel: t('Unban {{count, number}}', { count: ids.length }),
    });
  // A table without a primary key has no row URL: no row menu, no selection.
  const keyed = meta.primaryKey.length > 0;
  const rowMenu = (row: Row) => {
    if (!keyed) return null;
    const id = rowId(meta, row);
    const items: MenuItem[] = [];
    const name = rowLabel(meta, id, row);
    // On users, what the server would refuse is left out: any change to
    // an operator's account by a mod, moderating one's own.
    // An erased player can be viewed and deleted, no more.
    const erased = isErased(meta, row);
    const mayChange = !meta.users || (mayChangeUser(me.data, id, row) && !erased);
    const mayModerate = mayModerateUser(me.data, id, row) && !erased;
    if (meta.permissions.read) items.push({ label: t('View'), onSelect: () => navigate(`/${seg(meta.name)}/${seg(id)}`) });
    // A soft-deleted row is not edited (the server reads live rows only): restored first.
    const deleted = isDeleted(meta, row);
    if (meta.permissions.update && mayChange && !deleted) items.push({ label: t('Edit'), onSelect: () => navigate(`/${seg(meta.name)}/${seg(id)}/edit`) });
    const ban = meta.banColumn ? row[meta.banColumn] : null;
    if (canBan && mayModerate) items.push({ label: ban ? t('Ban again…') : t('Ban…'), danger: true, onSelect: () => setBanning({ ids: [id], name }) });
    if (canBan && mayModerate && ban) items.push({ label: t('Unban'), onSelect: () => void unban([id], name) });
    if (canRevoke && mayModerate) items.push({ label: t('Revoke sessions'), onSelect: () => void revoke([id], name) });
    if (mayChange) for (const a of perRow) items.push({ label: a.label, onSelect: () => void runAction(a, id) });
    if (meta.permissions.update && deleted) items.push({ label: t('Restore', { ns: 'rows' }), onSelect: () => void restore(id) });
    else if (meta.permissions.delete && (mayChange || (erased && mayChangeUser(me.data, id, row)))) items.push({ label: t('Delete'), danger: true, onSelect: () => void remove(row) });
    return <RowMenu items={items} label={t('Actions for row {{id}}', { id })} />;
  };

  return (
    <section>
      <div className="page-title">
        <h1>
          <ResourceIcon name={meta.icon} size={20} /> {meta.label}
          {/* A view or a table without a key: the panel never writes it; why on hover. */}
          {meta.readOnly && <span className="badge" title={t('Read-only: {{reason}}', { reason: meta.readOnly })} tabIndex={0}>{t('Read-only')}</span>}
        </h1>
        <div className="toolbar">
          {/* With a selection, the table's actions move to the selection bar. */}
          {selected.size === 0 && bulk.map((a) => (
            <button key={a.name} type="button" onClick={() => void runAction(a)}>
              {a.label}
            </button>
          ))}
          <ApiHelp meta={meta} />
          <a className="button" href={`${API}/${seg(meta.name)}/_export.csv${exportQuery(params, meta)}`} download>
            <Download size={14} aria-hidden="true" /> {t('Export CSV')}
          </a>
          {meta.permissions.create && (
            <Link to={`/${seg(meta.name)}/new`} className="button primary">
              <Plus size={14} aria-hidden="true" /> {t('Create')}
            </Link>
          )}
        </div>
      </div>
      <ScopeNote meta={meta} />
      {meta.banColumn && (
        <BannedFilter on={params.get('_banned') === 'true'} onChange={(on) => update((p) => {
          if (on) p.set('_banned', 'true');
          else p.delete('_banned');
          p.delete('page');
        })} />
      )}
      {meta.softDeleteColumn && (
        <DeletedFilter on={params.get('_deleted') === 'only'} onChange={(on) => update((p) => {
          if (on) p.set('_deleted', 'only');
          else p.delete('_deleted');
          p.delete('page');
        })} />
      )}
      {meta.name === 'adminAudit' && (
        <Suspense fallback={null}>
          <AuditFilters meta={meta} params={params} set={(changes) => update((p) => {
            for (const [k, v] of Object.entries(changes)) {
              if (v) p.set(k, v);
              else p.delete(k);
            }
            p.delete('page');
          })} />
        </Suspense>
      )}
      <SearchBox
        key={params.get('_q') ?? ''}
        initial={params.get('_q') ?? ''}
        placeholder={meta.name === 'adminAudit' ? t('Search: a player’s email or name, an action…') : undefined}
        onSearch={(q) =>
          update((p) => {
            if (q) p.set('_q', q);
            else p.delete('_q');
            p.delete('page');
          })
        }
      />
      <FilterBar
        // The list's columns first, in its order (the users list leads
        // with the email, not the id), then the others but the panel's
        // machinery (the users' token version).
        columns={[...columns, ...meta.columns.filter((c) => !columns.includes(c) && !c.technical)]}
        filters={filtersOf(params, meta.columns)}
        onAdd={(param, value) =>
          update((p) => {
            p.set(param, value);
            p.delete('page');
          })
        }
        onRemove={(param) =>
          update((p) => {
            p.delete(param);
            p.delete('page');
          })
        }
      />
      {selected.size > 0 && (
        <div className="bulk-bar" role="region" aria-label={t('Selection')}>
          <span>{t('{{count, number}} selected', { count: selected.size })}</span>
          {bulk.map((a) => (
            <button key={a.name} type="button" onClick={() => void runAction(a, undefined, [...selected])}>
              {a.label}
            </button>
          ))}
          {canBan && (
            <button type="button" className="danger" onClick={() => setBanning({ ids: [...selected], name: t('{{count, number}} users', { count: selected.size }) })}>
              {t('Ban…')}
            </button>
          )}
          {canBan && (
            <button type="button" onClick={() => void unbanSelected([...selected])}>
              {t('Unban')}
            </button>
          )}
          {canRevoke && (
            <button type="button" onClick={() => void revoke([...selected])}>
              {t('Revoke sessions')}
            </button>
          )}
          {meta.permissions.delete && !deletedView && (
            <button type="button" className="danger" onClick={() => void removeSelected()}>
              <Trash2 size={14} aria-hidden="true" /> {t('Delete selected')}
            </button>
          )}
          <button type="button" onClick={() => setSelection({ key: listKey, ids: new Set() })}>{t('Clear selection')}</button>
        </div>
      )}
      {list.isError && <ErrorNote error={list.error} />}
      {list.isPending ? (
        <Loading />
      ) : list.data ? (
        <>
          <DataTable
            meta={meta}
            columns={tableColumns(meta, deletedView)}
            rows={meta.users ? list.data.rows.map((r) => erasedRow(meta, r)) : list.data.rows}
            sort={sort}
            onSort={onSort}
            rowMenu={rowMenu}
            selected={canSelect ? selected : undefined}
            onSelect={canSelect ? onSelect : undefined}
          />
          <Pagination
            page={page}
            pageSize={pageSize}
            total={list.data.total}
            estimated={list.data.estimated}
            hasNext={byCursor ? list.data.next !== '' : undefined}
            hasPrevious={byCursor ? (page - 1) * pageSize <= maxOffset || cursorsSeen.has(pagingKey(page - 1)) : undefined}
            maxPage={list.data.next !== '' || byCursor ? Math.floor(maxOffset / pageSize) : undefined}
            onPage={(n) => {
              setFocusPage(n);
              update((p) => {
                if (n > 0) p.set('page', String(n));
                else p.delete('page');
                p.delete('after');
                if (n * pageSize > maxOffset) {
                  const cursor = n === page + 1 ? list.data?.next : cursorsSeen.get(pagingKey(n));
                  if (cursor) p.set('after', cursor);
                }
              });
            }}
            onPageSize={(n) =>
              update((p) => {
                if (n === pageSizes[0]) p.delete('size');
                else p.set('size', String(n));
                p.delete('page');
              })
            }
            onCountExactly={() => update((p) => p.set('_count', 'exact'))}
          />
        </>
      ) : null}
      {banning && (
        <BanDialog
          name={banning.name}
          onSubmit={(body) => bulkModerate('ban', banning.ids, body)}
          onClose={() => setBanning(null)}
          onDone={(a) => {
            setBanning(null);
            void moderated(a, 'ban', new Map(banning.ids.map((id) => [id, nameOf(id)])));
          }}
        />
      )}
      {dialog}
    </section>
  );
}

function SearchBox({ initial, placeholder, onSearch }: { initial: string; placeholder?: string; onSearch: (q: string) => void }) {
  const { t } = useTranslation('list');
  return (
    <form
      className="search"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(String(new FormData(e.currentTarget).get('q') ?? '').trim());
      }}
    >
      <Search size={14} aria-hidden="true" />
      <input type="search" name="q" aria-label={t('Search')} placeholder={placeholder ?? t('Search…')} defaultValue={initial} />
      <button type="submit">{t('Search')}</button>
    </form>
  );
}

// BannedFilter narrows Users to those banned now (_banned=true): not
// those whose ban has ended.
function BannedFilter({ on, onChange }: { on: boolean; onChange: (on: boolean) => void }) {
  const { t } = useTranslation('list');
  return (
    <div className="quick-filters" role="group" aria-label={t('Quick filters')}>
      <button type="button" className="toggle" aria-pressed={on} onClick={() => onChange(!on)}>
        <Ban size={14} aria-hidden="true" /> {t('Banned')}
      </button>
    </div>
  );
}

// erasedRow shows an erased player's row as "Erased player": its email
// (erased-<id>@erased.invalid) and names are no one's.
function erasedRow(meta: ResourceMeta, row: Row): Row {
  if (!isErased(meta, row)) return row;
  const email = meta.emailColumn ?? 'email';
  const out: Row = { ...row, [email]: erasedLabel(), _erased: true };
  for (const c of ['display_name', 'name']) if (typeof out[c] === 'string') out[c] = null;
  return out;
}
