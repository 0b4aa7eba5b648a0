import type { Column, ResourceMeta } from '../api';
import { ForeignKeyPicker } from '../components/ForeignKeyPicker';
import { useRowLabel } from '../names';
import { useCatalog, useUsersMeta } from '../queries';

// Entries that are not of a table: sign-ins and live rooms.
const otherResources = [
  { name: 'auth', label: 'Sign-in' },
  { name: 'rooms', label: 'Live rooms' },
];

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
  const resources = [...(catalog.data ?? []).map((r) => ({ name: r.name, label: r.label })), ...otherResources];
  const any = auditParams.some((p) => params.has(p));
  // The actions the panel records, in the server's words: the field shows
  // and suggests the words and sends the key; a game's own action
  // (Audit().Record), which has no label, is typed as recorded.
  const actionLabels = meta.auditActions ?? {};
  const knownActions = Object.keys(actionLabels);
  const actionKey = (typed: string) => knownActions.find((a) => actionLabels[a] === typed) ?? typed;
  const action = params.get('action') ?? '';
  return (
    <fieldset className="audit-filters">
      <legend className="sr-only">Filter the audit log</legend>
      <div className="audit-filter">
        <label htmlFor="audit-operator">Operator</label>
        {users && operatorCol?.linkTo ? (
          <ForeignKeyPicker id="audit-operator" col={{ ...operatorCol, label: 'Operator', notNull: false }} target={users} value={operator} label={operatorLabel}
            disabled={false} onChange={(id) => set({ operator_id: id })} />
        ) : (
          <input id="audit-operator" defaultValue={operator} key={operator} placeholder="Operator id" onBlur={(e) => set({ operator_id: e.currentTarget.value.trim() })} />
        )}
      </div>
      <div className="audit-filter">
        <label htmlFor="audit-action">Action</label>
        <input id="audit-action" list="audit-actions" key={action} defaultValue={actionLabels[action] ?? action} placeholder="Any action"
          onChange={(e) => {
            // A suggestion picked applies at once; typing applies on Enter or leaving.
            const key = actionKey(e.currentTarget.value);
            if (knownActions.includes(key)) set({ action: key });
          }}
          onBlur={(e) => set({ action: actionKey(e.currentTarget.value.trim()) })}
          onKeyDown={(e) => {
            if (e.key === 'Enter') set({ action: actionKey(e.currentTarget.value.trim()) });
          }} />
        <datalist id="audit-actions">
          {knownActions.map((a) => <option key={a} value={actionLabels[a]} />)}
        </datalist>
      </div>
      <div className="audit-filter">
        <label htmlFor="audit-resource">Resource</label>
        <select id="audit-resource" value={resource} onChange={(e) => {
          set({ resource: e.currentTarget.value, target_id: '' });
        }}>
          <option value="">Any resource</option>
          {resources.map((r) => <option key={r.name} value={r.name}>{r.label}</option>)}
          {resource && !resources.some((r) => r.name === resource) && <option value={resource}>{resource}</option>}
        </select>
      </div>
      <div className="audit-filter">
        <label htmlFor="audit-target">Target</label>
        {target ? (
          <ForeignKeyPicker id="audit-target" col={targetColumn(target, users, operatorCol)} target={target} value={targetId} label={targetLabel}
            disabled={false} onChange={(id) => set({ target_id: id })} />
        ) : (
          <input id="audit-target" key={targetId} defaultValue={targetId} placeholder={resource ? 'Target id' : 'Choose a resource, or type an id'}
            onBlur={(e) => set({ target_id: e.currentTarget.value.trim() })}
            onKeyDown={(e) => {
              if (e.key === 'Enter') set({ target_id: e.currentTarget.value.trim() });
            }} />
        )}
      </div>
      {any && (
        <button type="button" className="audit-clear" onClick={() => set(Object.fromEntries(auditParams.map((p) => [p, ''])))}>
          Clear filters
        </button>
      )}
    </fieldset>
  );
}

// targetColumn is the column the target picker acts for: labelled
// "Target", naming the rows by the label the server gives their links.
function targetColumn(target: ResourceMeta, users: ResourceMeta | undefined, operatorCol: Column | undefined): Column {
  const base = { name: 'target_id', label: 'Target', type: 'text', dataType: 'string', notNull: false, primary: false, hasDefault: false, readOnly: false } as Column;
  const labelColumn = target === users ? operatorCol?.linkTo?.labelColumn : ['display_name', 'name', 'email', 'title'].find((c) => target.columns.some((col) => col.name === c));
  return { ...base, linkTo: { resource: target.name, labelColumn } };
}
