import { lazy, Suspense, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { parseJSON, stringifyJSON } from '../json';
import { jsonProblem } from '../jsonWords';

const CodeMirrorJson = lazy(() => import('./CodeMirrorJson'));

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
  const { t } = useTranslation('form');
  const problem = useMemo(() => jsonProblem(value), [value]);
  return (
    <div className="json-editor">
      <Suspense fallback={<textarea id={id} className="mono" rows={6} value={value} disabled={disabled} aria-label={label} onChange={(e) => onChange(e.target.value)} />}>
        <CodeMirrorJson id={id} value={value} disabled={disabled} label={label} onChange={onChange} />
      </Suspense>
      {!disabled && (
        <div className="json-tools">
          <button type="button" disabled={problem !== '' || value.trim() === ''} onClick={() => onChange(stringifyJSON(parseJSON(value), 2))}>
            {t('Format')}
          </button>
          <span className={problem ? 'form-error' : 'muted'} aria-live="polite">
            {problem || (value.trim() === '' ? t('Empty') : t('Valid JSON'))}
          </span>
        </div>
      )}
    </div>
  );
}
