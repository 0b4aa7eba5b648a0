import type { ReactNode } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { Undo2 } from 'lucide-react';
import { toast } from 'sonner';
import { Trans, useTranslation } from 'react-i18next';
import { ApiError, client, errorText, isStale, pageOf, query, rowParams, seg, writeHeaders, type ResourceMeta, type Row, type Versioned } from '../api';
import { AuditPayload, useRevertedEntry } from '../components/AuditPayload';
import { namedPayload } from '../components/CellValue';
import { columnChanges, useActionLabel, type ColumnChange } from '../auditWords';
import { formatTime, Time } from '../time';
import { useConfirm, type ConfirmOptions } from '../components/ConfirmDialog';
import { ErrorNote, Loading } from '../components/Status';
import { rowQuery, useMe, useResourceMeta } from '../queries';
import { fieldLabel, valueWords } from '../fieldWords';
import { pathWords, sameJSON, valueAt } from '../jsonDiff';

const pageSize = 20;

type Payload = { changes?: unknown; row?: Row; auditId?: number; of?: string; [k: string]: unknown };

// revertible is what a revert of e would do, or undefined: an entry with
// changes puts its columns back; a create's revert deletes the row. (A
// delete's is on the audit entry's page: the row has no page of its own.)
// An entry too large to record what changed cannot be put back (the
// server refuses it, 400 not_revertible): its History says so instead.
function revertible(e: Row): 'changes' | 'create' | undefined {
  const p = (e.payload ?? {}) as Payload;
  if (p.changes !== undefined && p.changes !== null) {
    const changes = columnChanges(p.changes);
    return changes && changes.length > 0 && changes.every(([, c]) => c.kind !== 'truncated') ? 'changes' : undefined;
  }
  if (e.action === 'create' && p.row) return 'create';
  return undefined;
}

// historyHeadKeys are the payload's keys an entry's head says (or, for a
// create's or delete's row, the row itself shows): not repeated below it.
const historyHeadKeys = ['row', 'ip', 'userAgent', 'auditId', 'of'];

// headParts are the marked parts of an entry's head: the action, who.
const headParts = { action: <strong className="history-action" />, who: <strong /> };

// RevertHead is a revert's head in a row's history: the change it undid
// by its time and action, linked to its entry (its number on hover), and
// who: "Reverted the change of 3 Dec 2026, 12:51 (Updated) by ann".
function RevertHead({ says, id, entries }: { says: { action: string; who: string; of: string }; id: string; entries: Row[] }) {
  const { t } = useTranslation('history');
  const { time, link } = useRevertedEntry(id, entries);
  const values = { ...says, time };
  const components = { ...headParts, entry: link };
  if (!time) {
    return says.of
      ? <Trans t={t} i18nKey="<action>{{action}}</action> <entry>an earlier change</entry> ({{of}}) by <who>{{who}}</who>" values={values} components={components} />
      : <Trans t={t} i18nKey="<action>{{action}}</action> <entry>an earlier change</entry> by <who>{{who}}</who>" values={values} components={components} />;
  }
  return says.of
    ? <Trans t={t} i18nKey="<action>{{action}}</action> the change of <entry>{{time}}</entry> ({{of}}) by <who>{{who}}</who>" values={values} components={components} />
    : <Trans t={t} i18nKey="<action>{{action}}</action> the change of <entry>{{time}}</entry> by <who>{{who}}</who>" values={values} components={components} />;
}


// RevertPreview is the table a revert's confirmation shows: each field
// (a document's each place), what it holds now, what it will hold; one
// changed since the entry is marked, as the server will refuse it.
function RevertPreview({ meta, changes, now }: { meta: ResourceMeta; changes: [string, ColumnChange][]; now: Row }) {
  const { t } = useTranslation('history');
  const changedSince = <span className="form-error"> {t('(changed since)')}</span>;
  return (
    <div className="table-wrap">
      <table className="data-table diff-table" aria-label={t('What the revert changes')}>
        <thead><tr><th>{t('Field')}</th><th>{t('Now')}</th><th>{t('After the revert')}</th></tr></thead>
        <tbody>
          {changes.flatMap(([k, c]) => {
            const col = meta.columns.find((x) => x.name === k);
            if (c.kind === 'truncated') return [];
            if (c.kind === 'value') {
              return (
                <tr key={k}>
                  <td title={k}>{fieldLabel(meta, k)}</td>
                  <td>{valueWords(now[k], col)}{!sameJSON(now[k] ?? null, c.after ?? null) && changedSince}</td>
                  <td>{valueWords(c.before, col)}</td>
                </tr>
              );
            }
            return c.paths.map((p, i) => {
              const at = valueAt(now[k], p.path);
              return (
                <tr key={k + '/' + i}>
                  <td title={k}>{fieldLabel(meta, k)} <code className="path">{pathWords(p.path)}</code></td>
                  <td>{at === undefined ? <span className="null">{t('(not there)')}</span> : valueWords(at)}{!sameJSON(at, p.after) && changedSince}</td>
                  <td>{'before' in p ? valueWords(p.before) : <span className="null">{t('(removed)')}</span>}</td>
                </tr>
              );
            });
          })}
        </tbody>
      </table>
    </div>
  );
}

// useRevert runs POST _revert for an entry after a confirmation that says
// exactly what changes; a row changed since is a conflict the server
// names, which an admin may override after a second confirmation.
//
// now is the row as the operator sees it, with its version: the revert
// sends it in If-Match, so it changes the row the confirmation showed and
// no other. A row that changed since is shown again ("now" as it is) and
// the revert asked once more. Without now (the audit entry of a delete or
// a create, whose row the page does not read) no If-Match is sent: the
// server checks the row against the entry itself (a delete's row must not
// exist again, a create's must still be as created).
export function useRevert(meta: ResourceMeta, id: string, onDone: (deleted: boolean) => Promise<unknown> | void): [ReactNode, (e: Row, now?: Versioned) => Promise<void>] {
  const me = useMe();
  const { t } = useTranslation('history');
  const [dialog, ask] = useConfirm();
  const params = rowParams(meta.name, id);
  const revert = async (e: Row, now?: Versioned) => {
    const p = (e.payload ?? {}) as Payload;
    const changes = columnChanges(p.changes);
    const when = formatTime(e.created_at);
    const o: ConfirmOptions =
      e.action === 'delete'
        ? { title: t('Restore this row?'), description: t('It is created again with the values it had when it was deleted ({{when}}).', { when }), confirmLabel: t('Restore') }
        : e.action === 'create' && !p.changes
          ? { title: t('Undo this creation?'), description: t('The row created {{when}} is deleted.', { when }), confirmLabel: t('Delete the row'), danger: true }
          : { title: t('Revert this change?'), description: t('The fields go back to what they were before the change of {{when}}.', { when }), confirmLabel: t('Revert'), danger: true,
              body: changes && now ? <RevertPreview meta={meta} changes={changes} now={now.row} /> : undefined };
    if (!(await ask(o))) return;
    const deletes = e.action === 'create' && !p.changes;
    let deleted = false;
    // send reverts the row of version (any, without one): true once done.
    const send = async (version: string | undefined) => {
      await client.POST('/{resource}/{id}/_revert', { params, body: { auditId: e.id as number }, headers: writeHeaders({ ifMatch: version }) });
      return true;
    };
    try {
      const done = await send(now?.etag).catch(async (err: unknown) => {
        // The row changed since the operator's read (If-Match): the
        // confirmation showed other values than the row's. Shown again
        // as it is, the revert is theirs to confirm.
        if (!isStale(err) || Object.keys(err.fields).length > 0 || !changes) throw err;
        const again = await ask({ ...o, title: t('The row changed since you opened it'), description: t('Nothing was reverted. The fields as they are now, and as the revert leaves them:'),
          body: <RevertPreview meta={meta} changes={changes} now={err.row} /> });
        return again && send(err.etag);
      });
      if (done) {
        deleted = deletes;
        toast.success(e.action === 'delete' ? t('Row restored') : t('Reverted'));
      }
    } catch (err) {
      if (err instanceof ApiError && err.status === 409 && Object.keys(err.fields).length > 0 && me.data?.role === 'admin') {
        const again = await ask({ title: t('The row changed since'), description: t('{{problem}}. Revert anyway, overwriting the later changes?', { problem: errorText(err) }), confirmLabel: t('Revert anyway'), danger: true });
        if (again) {
          try {
            // Over the row the refusal named, not one changed since.
            await client.POST('/{resource}/{id}/_revert', { params, body: { auditId: e.id as number, force: true }, headers: writeHeaders({ ifMatch: err.etag }) });
            deleted = deletes;
            toast.success(t('Reverted'));
          } catch (err2) {
            toast.error(errorText(err2));
          }
        }
      } else {
        toast.error(errorText(err));
      }
    }
    await onDone(deleted);
  };
  return [dialog, revert];
}

// RowHistory is a row's History tab: its audit entries, newest first, each
// with who, when, what changed (field, before, after) and, for whoever
// may, Revert.
export function RowHistory({ meta, id }: { meta: ResourceMeta; id: string }) {
  const qc = useQueryClient();
  // The row as its page shows it, with its version (in the cache already).
  const row = useQuery(rowQuery(meta.name, id));
  const label = useActionLabel();
  const { t } = useTranslation('history');
  const navigate = useNavigate();
  const q = useInfiniteQuery({
    queryKey: ['history', meta.name, id],
    initialPageParam: '',
    queryFn: ({ pageParam }) => {
      const p = new URLSearchParams({ _limit: String(pageSize) });
      if (pageParam) p.set('_cursor', pageParam);
      return pageOf(client.GET('/{resource}/{id}/_history', { params: rowParams(meta.name, id), querySerializer: query(p) }));
    },
    getNextPageParam: (last) => last.next || undefined,
    // Always fetched on arrival: an edit, a ban or an action elsewhere
    // is in the history at once.
    staleTime: 0,
  });
  const [dialog, revert] = useRevert(meta, id, async (deleted) => {
    // A revert of the creation deleted the row: back to the list.
    if (deleted) {
      navigate(`/${seg(meta.name)}`);
      return;
    }
    await Promise.all([
      qc.invalidateQueries({ queryKey: ['row', meta.name, id] }),
      qc.invalidateQueries({ queryKey: ['history', meta.name, id] }),
      qc.invalidateQueries({ queryKey: ['list', meta.name] }),
    ]);
  });
  if (q.isPending) return <Loading />;
  if (q.isError) return <ErrorNote error={q.error} />;
  const entries = q.data.pages.flatMap((p) => p.rows);
  if (entries.length === 0) return <p className="muted">{t('No change of this row is in the audit log.')}</p>;
  const canRevert = (kind: 'changes' | 'create') => (kind === 'create' ? meta.permissions.delete : meta.permissions.update);
  return (
    <>
      <ol className="history">
        {entries.map((e) => {
          const labels = (e._labels ?? {}) as Record<string, string>;
          const kind = revertible(e);
          const p = (e.payload ?? {}) as Payload;
          // Who did what: a revert names the change it undid.
          const says = {
            action: label(e.action),
            who: labels.operator_id ?? (e.operator_id ? String(e.operator_id) : t('the game')),
            of: p.of ? label(p.of) : '',
          };
          return (
            <li key={String(e.id)} className="history-entry">
              <div className="history-head">
                <span>
                  {e.action === 'revert' && p.auditId !== undefined ? (
                    <RevertHead says={says} id={String(p.auditId)} entries={entries} />
                  ) : (
                    <Trans t={t} ns="history" i18nKey="<action>{{action}}</action> by <who>{{who}}</who>" values={says} components={headParts} />
                  )}
                  {' · '}<Link to={'/adminAudit/' + seg(String(e.id))} className="muted"><Time value={e.created_at} /></Link>
                  {typeof p.ip === 'string' && p.ip && <span className="muted"> {t('from {{ip}}', { ip: p.ip })}</span>}
                </span>
                {kind && canRevert(kind) && (
                  <button type="button" onClick={() => void revert(e, row.data)}>
                    <Undo2 size={14} aria-hidden="true" /> {t('Revert…')}
                  </button>
                )}
              </div>
              {/* The head says who, when, from where and which entry a revert undid. */}
              {Object.keys(p).some((k) => !historyHeadKeys.includes(k)) ? <AuditPayload payload={Object.fromEntries(Object.entries(namedPayload(e) as Payload).filter(([k]) => !historyHeadKeys.includes(k)))} entry={e} /> : null}
            </li>
          );
        })}
      </ol>
      {q.hasNextPage && (
        <button type="button" onClick={() => void q.fetchNextPage()} disabled={q.isFetchingNextPage}>
          {q.isFetchingNextPage ? t('Loading…') : t('Older changes')}
        </button>
      )}
      {dialog}
    </>
  );
}

// AuditEntryActions are an audit entry page's ways back to its row: the
// row's history, and the revert of this entry (Restore for a delete:
// the row has no page to revert it from).
export function AuditEntryActions({ entry }: { entry: Row }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const { t } = useTranslation('history');
  const target = useResourceMeta(String(entry.resource ?? ''));
  const id = String(entry.target_id ?? '');
  const kind = revertible(entry);
  // The row as it is now, for the revert's "now and after" table.
  const current = useQuery({
    ...rowQuery(target?.name ?? '', id),
    enabled: kind === 'changes' && !!target?.permissions.read && id !== '',
    retry: false,
  });
  const [dialog, revert] = useRevert(target ?? ({ name: '' } as ResourceMeta), id, async (deleted) => {
    await qc.invalidateQueries({ queryKey: ['history', target?.name, id] });
    await qc.invalidateQueries({ queryKey: ['list'] });
    if (!deleted && target) navigate(`/${seg(target.name)}/${seg(id)}?tab=_history`);
  });
  if (!target || !id) return null;
  const p = (entry.payload ?? {}) as Payload;
  const restorable = entry.action === 'delete' && !!p.row && target.permissions.create;
  const canRevert = kind === 'changes' ? target.permissions.update : kind === 'create' ? target.permissions.delete : false;
  return (
    <>
      {entry.action !== 'delete' && target.permissions.read && (
        <Link className="button" to={`/${seg(target.name)}/${seg(id)}?tab=_history`}>{t('Row history')}</Link>
      )}
      {(restorable || canRevert) && (
        <button type="button" className={restorable ? 'primary' : undefined} onClick={() => void revert(entry, current.data)}>
          <Undo2 size={14} aria-hidden="true" /> {restorable ? t('Restore this row…') : t('Revert…')}
        </button>
      )}
      {dialog}
    </>
  );
}
