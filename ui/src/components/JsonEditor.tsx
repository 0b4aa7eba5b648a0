import { lazy, Suspense, useMemo } from 'react';
import { parseJSON, stringifyJSON } from '../json';

const CodeMirrorJson = lazy(() => import('./CodeMirrorJson'));

// jsonProblem says what is wrong with a JSON text, or '' when it parses
// (an empty text is no value).
export function jsonProblem(text: string): string {
  if (text.trim() === '') return '';
  try {
    parseJSON(text);
    return '';
  } catch (err) {
    return err instanceof Error ? err.message : 'Not valid JSON.';
  }
}

// JsonEditor edits a JSON field: CodeMirror, loaded on first use (a
// textarea stands in while it loads), with a live validity note and a
// Format button.
export function JsonEditor({ id, value, disabled, label, onChange }: {
  id: string;
  value: string;
  disabled: boolean;
  label: string;
  onChange: (v: string) => void;
}) {
  const problem = useMemo(() => jsonProblem(value), [value]);
  return (
    <div className="json-editor">
      <Suspense fallback={<textarea id={id} className="mono" rows={6} value={value} disabled={disabled} aria-label={label} onChange={(e) => onChange(e.target.value)} />}>
        <CodeMirrorJson id={id} value={value} disabled={disabled} label={label} onChange={onChange} />
      </Suspense>
      {!disabled && (
        <div className="json-tools">
          <button type="button" disabled={problem !== '' || value.trim() === ''} onClick={() => onChange(stringifyJSON(parseJSON(value), 2))}>
            Format
          </button>
          <span className={problem ? 'form-error' : 'muted'} aria-live="polite">
            {problem ? `Invalid JSON: ${problem}` : value.trim() === '' ? 'Empty' : 'Valid JSON'}
          </span>
        </div>
      )}
    </div>
  );
}
