import type { CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { Column, ResourceMeta } from '../api';
import { actionLabels } from '../auditWords';
import { ForeignKeyPicker } from '../components/ForeignKeyPicker';
import { useRowLabel } from '../names';
import { useCatalog, useUsersMeta } from '../queries';

// The audit log's own filters, as equality parameters the generic filter
// bar leaves alone (operator_id=…, not operator_id_eq=…).
export const auditParams = ['operator_id', 'action', 'resource', 'target_id'] as const;

// AuditFilters narrows the audit log by operator, action, resource and
// target with controls that speak the operator's language: people and
// rows are picked by name, resources by label. A target is picked from
// the chosen resource's rows (sign-ins: from the users).
export function AuditFilters({ meta, params, set }: {
  meta: ResourceMeta;
  params: URLSearchParams;
  set: (changes: Record<string, string>) => void;
}) {
  const { t, i18n } = useTranslation('audit');
  const catalog = useCatalog();
  const users = useUsersMeta();
  const operatorCol = meta.columns.find((c) => c.name === 'operator_id');
  const resource = params.get('resource') ?? '';
  const targetKey = (resource === 'auth' || resource === 'roles') && users ? users.name : resource;
  const target = catalog.data?.find((r) => r.name === targetKey && r.permissions.list && r.primaryKey.length === 1);
  const operator = params.get('operator_id') ?? '';
  const targetId = params.get('target_id') ?? '';
  const operatorLabel = useRowLabel(users, operator);
  const targetLabel = useRowLabel(target, targetId);
  // Entries that are not of a table: sign-ins and live rooms.
  const otherResources = [
    { name: 'auth', label: t('Sign-in') },
    { name: 'rooms', label: t('Live rooms') },
  ];
  const resources = [...(catalog.data ?? []).map((r) => ({ name: r.name, label: r.label })), ...otherResources];
  const any = auditParams.some((p) => params.has(p));
  // The actions the panel records, in the operator's language: the field
  // shows and suggests the words and sends the key; a game's own action
  // (Audit().Record), which has no label, is typed as recorded.
  const actions = actionLabels(meta.auditActions);
  const actionKey = (typed: string) => actionFor(actions, meta.auditActions ?? {}, typed);
  const action = params.get('action') ?? '';
  const actionShown = actions.find((a) => a.action === action)?.label ?? action;
  const operatorPicked = !!(users && operatorCol?.linkTo);
  const targetHint = resource ? t('Target id') : t('Choose a resource, or type an id');
  return (
    <fieldset className="audit-filters">
      <legend className="sr-only">{t('Filter the audit log')}</legend>
      <div className={operatorPicked ? 'audit-filter' : 'audit-filter fit'} style={operatorPicked ? undefined : fit(t('Operator id'))}>
        <label htmlFor="audit-operator">{t('Operator')}</label>
        {operatorPicked ? (
          <ForeignKeyPicker id="audit-operator" col={{ ...operatorCol, label: t('Operator'), notNull: false }} target={users} value={operator} label={operatorLabel}
            disabled={false} onChange={(id) => set({ operator_id: id })} />
        ) : (
          <input id="audit-operator" defaultValue={operator} key={operator} placeholder={t('Operator id')} onBlur={(e) => set({ operator_id: e.currentTarget.value.trim() })} />
        )}
      </div>
      <div className="audit-filter fit" style={fit(t('Any action'))}>
        <label htmlFor="audit-action">{t('Action')}</label>
        <input id="audit-action" list="audit-actions" key={action + ' ' + i18n.language} defaultValue={actionShown} placeholder={t('Any action')}
          onChange={(e) => {
            // A suggestion picked applies at once; typing applies on Enter or leaving.
            const key = actionKey(e.currentTarget.value);
            if (actions.some((a) => a.action === key && a.label === e.currentTarget.value)) set({ action: key });
          }}
          onBlur={(e) => set({ action: actionKey(e.currentTarget.value.trim()) })}
          onKeyDown={(e) => {
            if (e.key === 'Enter') set({ action: actionKey(e.currentTarget.value.trim()) });
          }} />
        <datalist id="audit-actions">
          {actions.map((a) => <option key={a.action} value={a.label} />)}
        </datalist>
      </div>
      <div className="audit-filter">
        <label htmlFor="audit-resource">{t('Resource')}</label>
        <select id="audit-resource" value={resource} onChange={(e) => {
          set({ resource: e.currentTarget.value, target_id: '' });
        }}>
          <option value="">{t('Any resource')}</option>
          {resources.map((r) => <option key={r.name} value={r.name}>{r.label}</option>)}
          {resource && !resources.some((r) => r.name === resource) && <option value={resource}>{resource}</option>}
        </select>
      </div>
      <div className={target ? 'audit-filter' : 'audit-filter fit'} style={target ? undefined : fit(targetHint)}>
        <label htmlFor="audit-target">{t('Target')}</label>
        {target ? (
          <ForeignKeyPicker id="audit-target" col={targetColumn(t, target, users, operatorCol)} target={target} value={targetId} label={targetLabel}
            disabled={false} onChange={(id) => set({ target_id: id })} />
        ) : (
          <input id="audit-target" key={targetId} defaultValue={targetId} placeholder={targetHint}
            onBlur={(e) => set({ target_id: e.currentTarget.value.trim() })}
            onKeyDown={(e) => {
              if (e.key === 'Enter') set({ target_id: e.currentTarget.value.trim() });
            }} />
        )}
      </div>
      {any && (
        <button type="button" className="audit-clear" onClick={() => set(Object.fromEntries(auditParams.map((p) => [p, ''])))}>
          {t('Clear filters')}
        </button>
      )}
    </fieldset>
  );
}

// fit sizes a filter's box to hold its placeholder whole, in any
// language (a "0" is at least as wide as the average letter): the box
// is never narrower than the others, and on a phone (styles.css) takes
// a line of its own when two no longer fit side by side.
function fit(placeholder: string): CSSProperties {
  return { '--fit': `${[...placeholder].length}ch` } as CSSProperties;
}

// targetColumn is the column the target picker acts for: labelled
// "Target", naming the rows by the label the server gives their links.
function targetColumn(t: TFunction<'audit'>, target: ResourceMeta, users: ResourceMeta | undefined, operatorCol: Column | undefined): Column {
  const base = { name: 'target_id', label: t('Target'), type: 'text', dataType: 'string', notNull: false, primary: false, hasDefault: false, readOnly: false } as Column;
  const labelColumn = target === users ? operatorCol?.linkTo?.labelColumn : ['display_name', 'name', 'email', 'title'].find((c) => target.columns.some((col) => col.name === c));
  return { ...base, linkTo: { resource: target.name, labelColumn } };
}

// actionFor is the action the Action box's text names: the action whose
// words (or the server's English label, or key) it is, regardless of case;
// else the one action whose words begin with it ("Ban" is Banned); else
// the text itself, a game's own action typed as recorded.
function actionFor(actions: { action: string; label: string }[], english: Record<string, string>, typed: string): string {
  const want = typed.trim().toLocaleLowerCase();
  if (want === '') return '';
  const same = (s: string | undefined) => s?.toLocaleLowerCase() === want;
  const exact = actions.find((a) => same(a.label) || same(english[a.action]) || a.action === typed.trim());
  if (exact) return exact.action;
  const begins = actions.filter((a) => a.label.toLocaleLowerCase().startsWith(want));
  return begins.length === 1 && begins[0] ? begins[0].action : typed.trim();
}
