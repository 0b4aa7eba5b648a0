import { createElement } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { useTranslation } from 'react-i18next';
import { client, errorText, dataOf, type ActionMeta, type ResourceMeta } from '../api';
import type { ConfirmOptions } from './ConfirmDialog';
import { ActionResult, hasResult } from './ActionResult';

// useResourceAction runs a custom action after its confirmation: the
// action's own prompt, else `Run "<label>"?`. Success is a toast
// that shows what the handler returned (kept until closed when there is
// something to read); a failure shows the server's error text. A bulk
// action run on a selection sends {ids}. It resolves true when the action
// ran, for the caller to follow up (a row's page leaves a row it deleted).
export function useResourceAction(meta: ResourceMeta, ask: (o: ConfirmOptions) => Promise<boolean>) {
  const qc = useQueryClient();
  const { t } = useTranslation('row');
  return async (action: ActionMeta, id?: string, ids?: string[]): Promise<boolean> => {
    const ok = await ask(
      action.confirm
        ? { title: action.confirm.title, description: action.confirm.description, confirmLabel: action.label }
        : { title: ids ? t('Run "{{action}}" on {{count}} selected?', { action: action.label, count: ids.length }) : t('Run "{{action}}"?', { action: action.label }), confirmLabel: action.label },
    );
    if (!ok) return false;
    let ran = false;
    try {
      const r = await dataOf(client.POST('/{resource}/_action/{action}', { params: { path: { resource: meta.name, action: action.name } }, body: action.perRow ? { id } : ids ? { ids } : {} }));
      if (hasResult(r?.result)) {
        toast.success(t('{{action}}: done', { action: action.label }), { description: createElement(ActionResult, { value: r.result }), duration: Infinity });
      } else {
        toast.success(t('{{action}}: done', { action: action.label }));
      }
      ran = true;
    } catch (err) {
      toast.error(errorText(err));
    }
    await qc.invalidateQueries({ queryKey: ['list', meta.name] });
    if (id !== undefined) await qc.invalidateQueries({ queryKey: ['row', meta.name, id] });
    return ran;
  };
}
