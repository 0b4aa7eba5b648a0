import { useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { api, errorText, seg, type ActionMeta, type ResourceMeta } from '../api';
import type { ConfirmOptions } from './ConfirmDialog';

// useResourceAction runs a custom action after the confirmation of SEED.md
// 2.6: the action's own prompt, else `Run "<label>"?`. Success is a generic
// toast; a failure shows the server's error text.
export function useResourceAction(meta: ResourceMeta, ask: (o: ConfirmOptions) => Promise<boolean>) {
  const qc = useQueryClient();
  return async (action: ActionMeta, id?: string) => {
    const ok = await ask(
      action.confirm
        ? { title: action.confirm.title, description: action.confirm.description, confirmLabel: action.label }
        : { title: `Run "${action.label}"?`, confirmLabel: action.label },
    );
    if (!ok) return;
    try {
      await api.post(`/${seg(meta.name)}/_action/${seg(action.name)}`, action.perRow ? { id } : {});
      toast.success(`${action.label}: done`);
    } catch (err) {
      toast.error(errorText(err));
    }
    await qc.invalidateQueries({ queryKey: ['list', meta.name] });
  };
}
