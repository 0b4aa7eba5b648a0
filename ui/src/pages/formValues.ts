import i18n from '../i18n';
import type { Column } from '../api';
import { exactInteger, parseJSON, stringifyJSON } from '../json';

// isTimeColumn: an instant, shown and entered in the operator's zone.
// The catalog's kind says so ("time"), whatever the column's data type:
// a unix-seconds integer column the server converts is one too. Without
// a kind (an older catalog), a datetime column that is not a wall clock
// or a day.
export function isTimeColumn(col: Pick<Column, 'kind' | 'dataType'>): boolean {
  if (col.kind !== undefined) return col.kind === 'time';
  return col.dataType === 'datetime';
}

// isDocumentColumn: a JSON column, whose edit is sent as a merge patch.
// (A PostgreSQL array of JSON values is an array column, sent whole.)
export function isDocumentColumn(col: Pick<Column, 'kind' | 'dataType'>): boolean {
  return col.kind !== undefined ? col.kind === 'json' : col.dataType === 'json';
}

// A form keeps every input as text (checkboxes as booleans) and converts
// to the column's JSON value only on submit.
export type FormValue = string | boolean;

function pad(n: number, w = 2) {
  return String(n).padStart(w, '0');
}

// toLocalInput turns an RFC 3339 time into a datetime-local value.
export function toLocalInput(v: unknown): string {
  if (typeof v !== 'string' || v === '') return '';
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

// formatDecimal writes a decimal value with its column's scale, as the
// database keeps it: 2500.5 in a numeric(12,2) is "2500.50". Digits only,
// never through a float; a value it cannot read is left as it is.
export function formatDecimal(v: unknown, scale: number | undefined): string {
  const s = String(v);
  if (scale === undefined || scale < 0) return s;
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(s.trim());
  if (!m || (m[2] === '' && !m[3])) return s;
  const frac = m[3] ?? '';
  if (frac.length > scale) return s;
  const whole = m[2] === '' ? '0' : m[2];
  return scale === 0 ? `${m[1]}${whole}` : `${m[1]}${whole}.${frac.padEnd(scale, '0')}`;
}

export function initialValue(col: Column, v: unknown): FormValue {
  if (col.kind === 'decimal' && v !== null && v !== undefined) return formatDecimal(v, col.scale);
  if (col.kind === 'timestamp-local' && typeof v === 'string') return v;
  if (col.kind === 'date' && typeof v === 'string') return v.slice(0, 10);
  if (isTimeColumn(col)) return toLocalInput(v);
  switch (col.dataType) {
    case 'boolean':
      return v === true;
    case 'json':
      return v === undefined || v === null ? '' : stringifyJSON(v, 2);
    default:
      return v === undefined || v === null ? '' : String(v);
  }
}

// FieldError is what is wrong with an input, said in the operator's
// language at the moment it is found.
export class FieldError extends Error {}

// toValue converts an input back to the column's JSON value. Empty text is
// null for a nullable column.
export function toValue(col: Column, v: FormValue): unknown {
  if (typeof v === 'boolean') return v;
  if (v === '' && (col.dataType !== 'string' || (col.kind !== undefined && col.kind !== 'text'))) {
    if (col.notNull) throw new FieldError(i18n.t('A value is required.', { ns: 'form' }));
    return null;
  }
  if (isTimeColumn(col)) {
    const d = new Date(v);
    if (Number.isNaN(d.getTime())) throw new FieldError(i18n.t('Enter a date and time.', { ns: 'form' }));
    return d.toISOString();
  }
  switch (col.kind) {
    case 'timestamp-local': {
      // A wall clock, sent as written: the column has no time zone.
      if (/^(-?infinity)$/.test(v)) return v;
      const t = v.trim();
      if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(t)) throw new FieldError(i18n.t('Enter a date and time.', { ns: 'form' }));
      return t.length === 16 ? t + ':00' : t;
    }
    case 'decimal':
      if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^(NaN|-?Infinity)$/.test(v.trim())) throw new FieldError(i18n.t('Enter a decimal number, such as 12.30.', { ns: 'form' }));
      return v.trim();
    case 'inet':
      if (!/^[0-9A-Fa-f:.]+(\/\d{1,3})?$/.test(v.trim())) throw new FieldError(i18n.t('Enter an address or a network, such as 10.0.0.0/8.', { ns: 'form' }));
      return v.trim();
    case 'array': {
      let parsed: unknown;
      try {
        parsed = parseJSON(v);
      } catch {
        throw new FieldError(i18n.t('Not valid JSON.', { ns: 'form' }));
      }
      if (!Array.isArray(parsed)) throw new FieldError(i18n.t('Enter a JSON array, such as ["a", "b"].', { ns: 'form' }));
      return parsed;
    }
  }
  if (col.maxLength && typeof v === 'string' && [...v].length > col.maxLength) throw new FieldError(i18n.t('At most {{count}} characters.', { ns: 'form', count: col.maxLength }));
  switch (col.dataType) {
    case 'integer': {
      if (!/^-?\d+$/.test(v.trim())) throw new FieldError(i18n.t('Enter a whole number.', { ns: 'form' }));
      // Exact past 2^53 (Steam ids, snowflakes): sent as the same digits.
      return exactInteger(v.trim());
    }
    case 'number': {
      const n = Number(v);
      if (v.trim() === '' || !Number.isFinite(n)) throw new FieldError(i18n.t('Enter a number.', { ns: 'form' }));
      return n;
    }
    case 'json':
      try {
        return parseJSON(v);
      } catch {
        throw new FieldError(i18n.t('Not valid JSON.', { ns: 'form' }));
      }
    default:
      return v === '' && !col.notNull ? null : v;
  }
}
