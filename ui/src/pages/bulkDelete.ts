import { client, errorText, rowParams, versioned } from '../api';
import i18n, { formatNumber } from '../i18n';

// The texts of this module are said outside components: their catalog
// loads with it, and again with each language chosen later.
void i18n.loadNamespaces('rows');

export interface BulkResult {
  deleted: string[];
  failed: { id: string; error: string }[];
  // versions: each soft-deleted row's version after its delete, which its
  // undo (a restore) checks.
  versions: Map<string, string>;
}

// bulkDelete deletes rows one DELETE each (so each gets its own audit
// entry and its own permission check), four at a time, and reports which
// failed and why instead of stopping at the first failure. The rows come
// from a list, which carries no versions: no If-Match, as for one row
// deleted from its list row.
export async function bulkDelete(resource: string, ids: string[], concurrency = 4): Promise<BulkResult> {
  const out: BulkResult = { deleted: [], failed: [], versions: new Map() };
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      try {
        const { etag } = await versioned(client.DELETE('/{resource}/{id}', { params: rowParams(resource, id) }));
        out.deleted.push(id);
        if (etag) out.versions.set(id, etag);
      } catch (err) {
        out.failed.push({ id, error: errorText(err) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, ids.length) }, worker));
  return out;
}

// bulkSummary is the toast of a bulk delete: a title, and for failures a
// description naming the first few rows and why.
// name says a row by its label ("Player 07"), for the toast.
export function bulkSummary(r: BulkResult, name: (id: string) => string = (id) => id): { title: string; description?: string } {
  const n = r.deleted.length + r.failed.length;
  if (r.failed.length === 0) {
    return { title: n === 1 ? i18n.t('{{name}} deleted', { ns: 'rows', name: name(r.deleted[0]!) }) : i18n.t('Deleted {{count, number}} rows', { ns: 'rows', count: n }) };
  }
  const lines = r.failed.slice(0, 3).map((f) => i18n.t('{{name}}: {{error}}', { ns: 'rows', name: name(f.id), error: f.error }));
  if (r.failed.length > 3) lines.push(i18n.t('…and {{count, number}} more', { ns: 'rows', count: r.failed.length - 3 }));
  return {
    title: i18n.t('Deleted {{deleted}} of {{total}}; {{failed}} failed', { ns: 'rows', deleted: formatNumber(r.deleted.length), total: formatNumber(n), failed: formatNumber(r.failed.length) }),
    description: lines.join('; '),
  };
}

// undoAll undoes one by one, in order, what a bulk operation did to ids,
// and fails after trying them all when any failed, naming how many.
export async function undoAll(ids: string[], undo: (id: string) => Promise<unknown>): Promise<void> {
  let failed = 0;
  let last: unknown;
  for (const id of ids) {
    try {
      await undo(id);
    } catch (err) {
      failed++;
      last = err;
    }
  }
  if (failed > 0) {
    throw new Error(i18n.t('{{failed}} of {{total}} could not be brought back: {{error}}', { ns: 'rows', failed: formatNumber(failed), total: formatNumber(ids.length), error: errorText(last) }));
  }
}
