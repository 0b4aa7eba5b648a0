import { api, seg, type ResourceMeta, type Row } from '../api';

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
// newest delete entry of its History that is theirs.
export async function undoDelete(meta: ResourceMeta, id: string, operator: string | undefined): Promise<void> {
  const base = `/${seg(meta.name)}/${seg(id)}`;
  if (meta.softDeleteColumn) {
    await api.post(base + '/_restore');
    return;
  }
  const h = await api.list(base + '/_history', new URLSearchParams({ _limit: '10' }));
  const entry = h.rows.find((e: Row) => e.action === 'delete' && (!operator || String(e.operator_id) === operator));
  if (!entry) throw new Error('Its delete is not in its history.');
  await api.post(base + '/_revert', { auditId: entry.id });
}

// deletedWhere says, in a delete's confirmation, where the row can be
// brought back from.
export function deletedWhere(meta: ResourceMeta, many = false): string {
  if (meta.softDeleteColumn) return many ? "They are marked deleted: the list's Deleted view can restore them." : "It is marked deleted: the list's Deleted view can restore it.";
  return many
    ? "Each row's History keeps it: its delete entry in the audit log can restore it."
    : "Its History keeps it: the delete's entry in the audit log can restore it.";
}
