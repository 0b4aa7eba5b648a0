import { useQueryClient } from '@tanstack/react-query';
import { ArchiveRestore, Trash } from 'lucide-react';
import { toast } from 'sonner';
import { useTranslation } from 'react-i18next';
import { client, errorText, isStale, rowParams, staleText, writeHeaders, type ResourceMeta, type Row } from '../api';

// A soft-delete resource (the catalog's softDeleteColumn): its list
// leaves deleted rows out unless _deleted asks, and a deleted row can be
// restored (POST …/_restore).

// isDeleted reports a row of meta that is soft-deleted.
export function isDeleted(meta: ResourceMeta, row: Row | undefined): boolean {
  return !!meta.softDeleteColumn && !!row && row[meta.softDeleteColumn] != null;
}

// DeletedFilter toggles the list's Deleted view (_deleted=only).
export function DeletedFilter({ on, onChange }: { on: boolean; onChange: (on: boolean) => void }) {
  const { t } = useTranslation('rows');
  return (
    <div className="quick-filters" role="group" aria-label={t('Deleted rows')}>
      <button type="button" className="toggle" aria-pressed={on} onClick={() => onChange(!on)}>
        <Trash size={14} aria-hidden="true" /> {t('Deleted')}
      </button>
    </div>
  );
}

// useRestore restores a soft-deleted row of meta by its id. etag is the
// version of the row as the operator saw it (its page): a row changed
// since is refused and shown again. The Deleted view's rows come from a
// list, which carries no versions: a restore there sends none, and that
// is safe, as a restore writes the soft-delete column alone and so cannot
// undo a value the operator did not see.
export function useRestore(meta: ResourceMeta) {
  const qc = useQueryClient();
  const { t } = useTranslation('rows');
  return async (id: string, etag?: string) => {
    try {
      await client.POST('/{resource}/{id}/_restore', { params: rowParams(meta.name, id), body: {}, headers: writeHeaders({ ifMatch: etag }) });
      toast.success(t('Restored'));
    } catch (err) {
      toast.error(isStale(err) ? staleText('restored') : errorText(err));
    }
    await qc.invalidateQueries({ queryKey: ['list', meta.name] });
    await qc.invalidateQueries({ queryKey: ['row', meta.name, id] });
  };
}

// RestoreButton is the row page's Restore, on a deleted row; version
// says the ETag of the row as the page shows it.
export function RestoreButton({ meta, id, row, version }: { meta: ResourceMeta; id: string; row: Row | undefined; version: () => string | undefined }) {
  const restore = useRestore(meta);
  const { t } = useTranslation('rows');
  if (!meta.permissions.update || !isDeleted(meta, row)) return null;
  return (
    <button type="button" onClick={() => void restore(id, version())}>
      <ArchiveRestore size={14} aria-hidden="true" /> {t('Restore')}
    </button>
  );
}
