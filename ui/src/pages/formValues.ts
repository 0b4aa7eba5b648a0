import type { Column } from '../api';

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

export function initialValue(col: Column, v: unknown): FormValue {
  switch (col.dataType) {
    case 'boolean':
      return v === true;
    case 'datetime':
      return toLocalInput(v);
    case 'json':
      return v === undefined || v === null ? '' : JSON.stringify(v, null, 2);
    default:
      return v === undefined || v === null ? '' : String(v);
  }
}

export class FieldError extends Error {}

// toValue converts an input back to the column's JSON value. Empty text is
// null for a nullable column.
export function toValue(col: Column, v: FormValue): unknown {
  if (typeof v === 'boolean') return v;
  if (v === '' && col.dataType !== 'string') {
    if (col.notNull) throw new FieldError('A value is required.');
    return null;
  }
  switch (col.dataType) {
    case 'integer': {
      if (!/^-?\d+$/.test(v.trim())) throw new FieldError('Enter a whole number.');
      return Number(v.trim());
    }
    case 'number': {
      const n = Number(v);
      if (v.trim() === '' || !Number.isFinite(n)) throw new FieldError('Enter a number.');
      return n;
    }
    case 'datetime': {
      const d = new Date(v);
      if (Number.isNaN(d.getTime())) throw new FieldError('Enter a date and time.');
      return d.toISOString();
    }
    case 'json':
      try {
        return JSON.parse(v);
      } catch {
        throw new FieldError('Not valid JSON.');
      }
    default:
      return v === '' && !col.notNull ? null : v;
  }
}
