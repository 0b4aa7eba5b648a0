import { useState, type KeyboardEvent } from 'react';
import { X } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import type { Column } from '../api';
import { exactInteger, parseJSON, stringifyJSON } from '../json';

// items reads the form's JSON text of an array; [] when it is not one.
function items(text: string): unknown[] {
  try {
    const v: unknown = parseJSON(text || '[]');
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

// ArrayEditor edits an array column as chips: Enter or a comma adds the
// typed item, each chip's button removes it. The form keeps the array as
// JSON text, as for a JSON column; numbers stay numbers, NULL elements
// show as "null" and are kept.
export function ArrayEditor({ id, col, value, disabled, onChange }: {
  id: string;
  col: Column;
  value: string;
  disabled: boolean;
  onChange: (v: string) => void;
}) {
  const { t } = useTranslation('form');
  const list = items(value);
  const [draft, setDraft] = useState('');
  const add = () => {
    const t = draft.trim();
    if (t === '') return;
    const item = col.elem === 'number' && /^-?\d+(\.\d+)?$/.test(t) ? (/^-?\d+$/.test(t) ? exactInteger(t) : Number(t)) : t;
    onChange(stringifyJSON([...list, item]));
    setDraft('');
  };
  const key = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter' || e.key === ',') {
      e.preventDefault();
      add();
    } else if (e.key === 'Backspace' && draft === '' && list.length > 0) {
      onChange(stringifyJSON(list.slice(0, -1)));
    }
  };
  return (
    <div className="array-editor">
      {list.length > 0 && (
        <ul className="chips" aria-label={t('{{field}} items', { field: col.label })}>
          {list.map((it, i) => (
            <li key={i} className="chip">
              {it === null ? <span className="null">{String(it)}</span> : String(it)}
              {!disabled && (
                <button type="button" className="icon-button" aria-label={t('Remove {{item}}', { item: String(it) })} onClick={() => onChange(stringifyJSON(list.filter((_, j) => j !== i)))}>
                  <X size={12} aria-hidden="true" />
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {!disabled && (
        <input id={id} name={col.name} type="text" value={draft} placeholder={t('Add an item, then Enter')} onChange={(e) => setDraft(e.target.value)} onKeyDown={key} onBlur={add} />
      )}
    </div>
  );
}
