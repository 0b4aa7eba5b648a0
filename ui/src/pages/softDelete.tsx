import { useQueryClient } from '@tanstack/react-query';
import { ArchiveRestore, Trash } from 'lucide-react';
import { toast } from 'sonner';
import { api, errorText, seg, type ResourceMeta, type Row } from '../api';

// A soft-delete resource (the catalog's softDeleteColumn): its list
// leaves deleted rows out unless _deleted asks, and a deleted row can be
// restored (POST …/_restore).

// isDeleted reports a row of meta that is soft-deleted.
export function isDeleted(meta: ResourceMeta, row: Row | undefined): boolean {
  return !!meta.softDeleteColumn && !!row && row[meta.softDeleteColumn] != null;
}

// DeletedFilter toggles the list's Deleted view (_deleted=only).
export function DeletedFilter({ on, onChange }: { on: boolean; onChange: (on: boolean) => void }) {
  return (
    <div className="quick-filters" role="group" aria-label="Deleted rows">
      <button type="button" className="toggle" aria-pressed={on} onClick={() => onChange(!on)}>
        <Trash size={14} aria-hidden="true" /> Deleted
      </button>
    </div>
  );
}

// useRestore restores a soft-deleted row of meta by its id.
export function useRestore(meta: ResourceMeta) {
  const qc = useQueryClient();
  return async (id: string) => {
    try {
      await api.post(`/${seg(meta.name)}/${seg(id)}/_restore`);
      toast.success('Restored');
      await qc.invalidateQueries({ queryKey: ['list', meta.name] });
      await qc.invalidateQueries({ queryKey: ['row', meta.name, id] });
    } catch (err) {
      toast.error(errorText(err));
    }
  };
}

// RestoreButton is the row page's Restore, on a deleted row.
export function RestoreButton({ meta, id, row }: { meta: ResourceMeta; id: string; row: Row | undefined }) {
  const restore = useRestore(meta);
  if (!meta.permissions.update || !isDeleted(meta, row)) return null;
  return (
    <button type="button" onClick={() => void restore(id)}>
      <ArchiveRestore size={14} aria-hidden="true" /> Restore
    </button>
  );
}
