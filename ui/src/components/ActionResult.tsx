// What a custom action's handler returned, for the operator to read: a
// small flat object as a key/value list, a plain value as text, anything
// else as indented JSON.

import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import i18n, { formatNumber } from '../i18n';
import { stringifyJSON } from '../json';

const maxKeys = 12;

type Scalar = string | number | bigint | boolean | null;
const isScalar = (v: unknown): v is Scalar => v === null || ['string', 'number', 'bigint', 'boolean'].includes(typeof v);

// hasResult is false for what says nothing more than "done": no value,
// null, true, {} and [].
export function hasResult(v: unknown): boolean {
  if (v === undefined || v === null || v === true) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

// text says a scalar in the operator's language.
function text(t: TFunction<'row'>, v: Scalar): string {
  if (v === null) return '—';
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'bigint') return v.toLocaleString(i18n.language);
  if (typeof v === 'boolean') return v ? t('yes') : t('no');
  return v;
}

export function ActionResult({ value }: { value: unknown }) {
  const { t } = useTranslation('row');
  if (isScalar(value)) return <span className="action-result">{text(t, value)}</span>;
  if (!Array.isArray(value) && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length <= maxKeys && entries.every(([, v]) => isScalar(v))) {
      return (
        <dl className="action-result kv">
          {entries.map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{text(t, v as Scalar)}</dd>
            </div>
          ))}
        </dl>
      );
    }
  }
  return <pre className="action-result json-block">{stringifyJSON(value, 2)}</pre>;
}
