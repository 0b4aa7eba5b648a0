import { client, isStale, pageOf, query, rowParams, writeHeaders, type ResourceMeta, type Row } from '../api';
import i18n from '../i18n';

// The texts of this module are said outside components: their catalog
// loads with it, and again with each language chosen later.
void i18n.loadNamespaces('rows');

// A delete is undone as the panel undoes it anywhere else, and audited
// so: on a soft-delete resource by _restore (audited as restore), else by
// the revert of the delete's audit entry (audited as revert), which
// creates the row again as it was.

// canUndoDelete: the operator may undo a delete of meta's rows (a revert
// of a delete creates the row; a restore updates it).
export function canUndoDelete(meta: ResourceMeta): boolean {
  return meta.softDeleteColumn ? meta.permissions.update : meta.permissions.create;
}

// undoDelete brings back the row id of meta that operator deleted: the
// newest delete entry of its History that is theirs. etag is the version
// the delete answered: a soft-deleted row the game changed since is left
// as it is (the undo fails, saying so). A row deleted for good has no
// version: the revert that re-creates it checks only that the row does
// not exist again.
export async function undoDelete(meta: ResourceMeta, id: string, operator: string | undefined, etag?: string): Promise<void> {
  const params = rowParams(meta.name, id);
  if (meta.softDeleteColumn) {
    try {
      await client.POST('/{resource}/{id}/_restore', { params, body: {}, headers: writeHeaders({ ifMatch: etag }) });
    } catch (err) {
      if (isStale(err)) throw new Error(i18n.t('it changed since it was deleted; restore it from its page if you still mean to.', { ns: 'rows' }));
      throw err;
    }
    return;
  }
  const h = await pageOf(client.GET('/{resource}/{id}/_history', { params, querySerializer: query(new URLSearchParams({ _limit: '10' })) }));
  const entry = h.rows.find((e: Row) => e.action === 'delete' && (!operator || String(e.operator_id) === operator));
  if (!entry) throw new Error(i18n.t('Its delete is not in its history.', { ns: 'rows' }));
  await client.POST('/{resource}/{id}/_revert', { params, body: { auditId: entry.id as number } });
}

// deletedWhere says, in a delete's confirmation, where the row can be
// brought back from.
export function deletedWhere(meta: ResourceMeta, many = false): string {
  if (meta.softDeleteColumn) {
    return many
      ? i18n.t("They are marked deleted: the list's Deleted view can restore them.", { ns: 'rows' })
      : i18n.t("It is marked deleted: the list's Deleted view can restore it.", { ns: 'rows' });
  }
  return many
    ? i18n.t("Each row's History keeps it: its delete entry in the audit log can restore it.", { ns: 'rows' })
    : i18n.t("Its History keeps it: the delete's entry in the audit log can restore it.", { ns: 'rows' });
}
