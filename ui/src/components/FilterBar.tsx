import { useState, type FormEvent } from 'react';
import { X } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import i18n from '../i18n';
import type { Column } from '../api';
import { isTimeColumn } from '../pages/formValues';
import { timeZone } from './CellValue';
import { useRowLabel } from '../names';
import { useResourceMeta } from '../queries';

// The server's filter suffixes (<col>_<op>=value). "null" takes true (is
// empty) or false (is not empty); the bar offers the two as operators.
export const operators = ['eq', 'ne', 'like', 'gt', 'gte', 'lt', 'lte', 'in', 'null', 'contains', 'overlaps', 'empty', 'within', 'key'] as const;

// opLabel says an operator of the bar (the server's suffixes, and isnull,
// notnull, noitems and items for null and empty): a sign, or words in the
// operator's language.
function opLabel(op: string): string {
  switch (op) {
    case 'eq': return '=';
    case 'ne': return '≠';
    case 'gt': return '>';
    case 'gte': return '≥';
    case 'lt': return '<';
    case 'lte': return '≤';
    case 'like': return i18n.t('contains', { ns: 'list' });
    case 'in': return i18n.t('in', { ns: 'list' });
    case 'isnull': return i18n.t('is empty', { ns: 'list' });
    case 'notnull': return i18n.t('is not empty', { ns: 'list' });
    case 'contains': return i18n.t('has all of', { ns: 'list' });
    case 'overlaps': return i18n.t('has any of', { ns: 'list' });
    case 'noitems': return i18n.t('has no items', { ns: 'list' });
    case 'items': return i18n.t('has items', { ns: 'list' });
    case 'within': return i18n.t('in network', { ns: 'list' });
    case 'key': return i18n.t('key is', { ns: 'list' });
    default: return op;
  }
}

export interface Filter {
  param: string;
  column: string;
  op: string;
  value: string;
}

// filtersOf reads the per-column filters (<col>_<op>=value) of a list URL.
export function filtersOf(params: URLSearchParams, columns: Column[]): Filter[] {
  const out: Filter[] = [];
  params.forEach((value, param) => {
    for (const op of operators) {
      const column = param.slice(0, -(op.length + 1));
      if (param.endsWith('_' + op) && columns.some((c) => c.name === column)) {
        out.push({ param, column, op, value });
        return;
      }
    }
  });
  return out;
}

// zoned returns a list's query with _tz, the operator's time zone, when
// it filters a time column: the server then reads a bare day
// (2025-03-15) or a wall time (2025-03-15T09:30) in that zone, so "from
// the 15th" means the operator's 15th, not UTC's. Values with Z or an
// offset are absolute either way. Without a time filter _tz is left out.
export function zoned(params: URLSearchParams, columns: Column[]): URLSearchParams {
  const out = new URLSearchParams(params);
  out.delete('_tz');
  const timed = filtersOf(params, columns).some((f) => {
    const col = columns.find((c) => c.name === f.column);
    return col !== undefined && isTimeColumn(col) && f.op !== 'null';
  });
  if (timed) out.set('_tz', timeZone);
  return out;
}

// pickerOf is the picker a column's filter value comes from: a day or a
// day and time for instants and wall clocks, a day for dates, else text.
function pickerOf(col: Column | undefined, op: string): 'date' | 'datetime' | undefined {
  if (!col || ['in', 'like'].includes(op)) return undefined;
  if (col.kind === 'date') return 'date';
  if (col.kind === 'timestamp-local' || isTimeColumn(col)) return 'datetime';
  return undefined;
}

// opsFor are the bar's operators for a column: what the server accepts
// for its data type (JSON: contains and empty; booleans: =, ≠ and empty),
// with empty/not-empty only for nullable columns.
function opsFor(col: Column | undefined): string[] {
  if (!col) return [];
  const nulls = col.notNull ? [] : ['isnull', 'notnull'];
  if (col.kind === 'array') return ['contains', 'overlaps', 'noitems', 'items', ...nulls];
  if (col.kind === 'inet') return ['eq', 'ne', 'in', 'within', 'like', ...nulls];
  if (col.kind === 'enum') return ['eq', 'ne', 'in', ...nulls];
  switch (col.dataType) {
    case 'json':
      return ['like', 'key', ...nulls];
    case 'boolean':
      return ['eq', 'ne', ...nulls];
    case 'string':
      return ['eq', 'ne', 'like', 'gt', 'gte', 'lt', 'lte', 'in', ...nulls];
    default:
      return ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', ...nulls];
  }
}

function chipText(f: Filter, col: Column | undefined): string {
  if (f.op === 'null') return opLabel(f.value === 'false' ? 'notnull' : 'isnull');
  if (f.op === 'empty') return opLabel(f.value === 'false' ? 'items' : 'noitems');
  // A day or wall time of an instant is the operator's; an absolute one
  // (Z, an offset) says so itself; a wall clock column has no zone.
  const local = col && isTimeColumn(col) && /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/.test(f.value);
  const op = opLabel(f.op);
  const value = f.value.replace('T', ' ');
  if (local) return i18n.t('{{op}} “{{value}}” ({{zone}})', { ns: 'list', op, value, zone: timeZone });
  if (col?.kind === 'timestamp-local') return i18n.t('{{op}} “{{value}}” (no time zone)', { ns: 'list', op, value });
  return i18n.t('{{op}} “{{value}}”', { ns: 'list', op, value });
}

// FilterBar adds and removes per-column filters: column, operator, value.
// Only the columns the catalog marks filterable are offered.
export function FilterBar({ columns, filters, onAdd, onRemove }: {
  columns: Column[];
  filters: Filter[];
  onAdd: (param: string, value: string) => void;
  onRemove: (param: string) => void;
}) {
  const { t } = useTranslation('list');
  const usable = columns.filter((c) => c.filterable ?? (c.dataType !== 'bytes' && c.dataType !== 'json'));
  const [column, setColumn] = useState(usable[0]?.name ?? '');
  const col = usable.find((c) => c.name === column);
  const ops = opsFor(col);
  const [op, setOp] = useState<string>('eq');
  const effectiveOp = ops.includes(op) ? op : (ops[0] ?? 'eq');
  const [value, setValue] = useState('');
  // A time filter is a day unless the operator asks for a time too.
  const [withTime, setWithTime] = useState(false);
  const picker = pickerOf(col, effectiveOp);
  const label = (name: string) => columns.find((c) => c.name === name)?.label ?? name;
  const needsValue = !['isnull', 'notnull', 'noitems', 'items'].includes(effectiveOp);
  const add = (e: FormEvent) => {
    e.preventDefault();
    if (!column) return;
    if (effectiveOp === 'isnull') onAdd(`${column}_null`, 'true');
    else if (effectiveOp === 'notnull') onAdd(`${column}_null`, 'false');
    else if (effectiveOp === 'noitems') onAdd(`${column}_empty`, 'true');
    else if (effectiveOp === 'items') onAdd(`${column}_empty`, 'false');
    else onAdd(`${column}_${effectiveOp}`, value);
    setValue('');
  };
  if (usable.length === 0) return null;
  return (
    <div className="filters">
      <form className="filter-row" onSubmit={add} aria-label={t('Add filter')}>
        <select aria-label={t('Filter column')} value={column} onChange={(e) => { setColumn(e.target.value); setValue(''); }}>
          {usable.map((c) => (
            <option key={c.name} value={c.name}>{c.label}</option>
          ))}
        </select>
        <select aria-label={t('Filter operator')} value={effectiveOp} onChange={(e) => setOp(e.target.value)}>
          {ops.map((o) => (
            <option key={o} value={o}>{opLabel(o)}</option>
          ))}
        </select>
        {needsValue &&
          (col?.choices ? (
            <select aria-label={t('Filter value')} value={value} onChange={(e) => setValue(e.target.value)}>
              <option value="">—</option>
              {col.choices.map((c) => (
                <option key={c} value={c}>{c}</option>
              ))}
            </select>
          ) : col?.dataType === 'boolean' ? (
            <select aria-label={t('Filter value')} value={value} onChange={(e) => setValue(e.target.value)}>
              <option value="">—</option>
              <option value="true">{t('yes')}</option>
              <option value="false">{t('no')}</option>
            </select>
          ) : picker ? (
            <>
              {picker === 'datetime' && (
                <select aria-label={t('Filter precision')} value={withTime ? 'time' : 'day'} onChange={(e) => { setWithTime(e.target.value === 'time'); setValue(''); }}>
                  <option value="day">{t('day')}</option>
                  <option value="time">{t('day and time')}</option>
                </select>
              )}
              <input aria-label={t('Filter value')} type={picker === 'datetime' && withTime ? 'datetime-local' : 'date'} step={picker === 'datetime' && withTime ? 1 : undefined}
                required value={value} onChange={(e) => setValue(e.target.value)}
                title={col && isTimeColumn(col) ? t('in your time zone, {{zone}}', { zone: timeZone }) : col?.kind === 'timestamp-local' ? t('no time zone: compared with the wall clock as stored') : undefined} />
            </>
          ) : (
            <input aria-label={t('Filter value')} placeholder={['in', 'contains', 'overlaps'].includes(effectiveOp) ? 'a,b,c' : effectiveOp === 'within' ? '10.0.0.0/8' : effectiveOp === 'key' ? t('key:value') : t('value')} value={value} onChange={(e) => setValue(e.target.value)} />
          ))}
        <button type="submit">{t('Add filter')}</button>
      </form>
      {filters.length > 0 && (
        <ul className="chips">
          {filters.map((f) => (
            <li key={f.param} className="chip">
              {label(f.column)} <ChipValue f={f} col={columns.find((c) => c.name === f.column)} />
              <button type="button" className="icon-button" aria-label={t('Remove filter {{param}}', { param: f.param })} onClick={() => onRemove(f.param)}>
                <X size={12} aria-hidden="true" />
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

// ChipValue is a chip's operator and value; a foreign key's row is said by
// its label ("is “Player 07”"), its id on hover.
function ChipValue({ f, col }: { f: Filter; col: Column | undefined }) {
  const target = useResourceMeta(col?.linkTo?.resource);
  const named = useRowLabel(f.op === 'eq' || f.op === 'ne' ? target : undefined, f.value);
  const { t } = useTranslation('list');
  if (named) return <span title={f.value}>{t('{{op}} “{{value}}”', { op: opLabel(f.op), value: named })}</span>;
  return <>{chipText(f, col)}</>;
}
