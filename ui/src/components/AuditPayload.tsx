import { stringifyJSON } from '../json';

// The audit entry's payload, shared by the audit log's entry page and a
// row's History tab.

// AuditPayload reads an audit entry's payload as a person would: the
// changed fields as a table of field, before and after, in full, then
// the rest (who asked from where, a reason) as labelled values.
export function AuditPayload({ payload }: { payload: unknown }) {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return <pre className="json-block">{stringifyJSON(payload, 2)}</pre>;
  const isChange = (v: unknown): v is { before?: unknown; after?: unknown } =>
    v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).every((k) => k === 'before' || k === 'after') && Object.keys(v).length > 0;
  // The panel's updates keep their diff under "changes"; Audit.RecordUpdate
  // writes it at the top level.
  const { changes: nested, ...top } = payload as Record<string, unknown>;
  const fromNested = nested !== null && typeof nested === 'object' && !Array.isArray(nested) && Object.values(nested).every(isChange);
  const entries = Object.entries(fromNested ? top : (payload as Record<string, unknown>));
  const changes = [...(fromNested ? Object.entries(nested as Record<string, unknown>) : []), ...entries.filter(([, v]) => isChange(v))] as [string, { before?: unknown; after?: unknown }][];
  const rest = entries.filter(([, v]) => !isChange(v));
  const show = (v: unknown) => (v === undefined ? <span className="null">—</span> : v === null ? <span className="null">null</span> : typeof v === 'string' ? v : <code className="diff-json">{stringifyJSON(v, 2)}</code>);
  return (
    <div className="stack">
      {changes.length > 0 && (
        <div className="table-wrap">
          <table className="data-table diff-table" aria-label="Changes">
            <thead><tr><th>Field</th><th>Before</th><th>After</th></tr></thead>
            <tbody>
              {changes.map(([k, v]) => (
                <tr key={k}><td className="mono">{k}</td><td>{show(v.before)}</td><td>{show(v.after)}</td></tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {rest.length > 0 && (
        <dl className="kv">
          {rest.map(([k, v]) => (
            <div key={k}><dt>{k}</dt><dd>{show(v)}</dd></div>
          ))}
        </dl>
      )}
    </div>
  );
}
