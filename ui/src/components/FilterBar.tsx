import { useState, type FormEvent } from 'react';
import { X } from 'lucide-react';
import type { Column } from '../api';

export const operators = ['eq', 'ne', 'like', 'gt', 'gte', 'lt', 'lte', 'in'] as const;
const opLabels: Record<string, string> = { eq: '=', ne: '≠', like: 'contains', gt: '>', gte: '≥', lt: '<', lte: '≤', in: 'in' };

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

// FilterBar adds and removes per-column filters: column, operator, value.
export function FilterBar({ columns, filters, onAdd, onRemove }: {
  columns: Column[];
  filters: Filter[];
  onAdd: (param: string, value: string) => void;
  onRemove: (param: string) => void;
}) {
  const usable = columns.filter((c) => c.dataType !== 'bytes' && c.dataType !== 'json');
  const [column, setColumn] = useState(usable[0]?.name ?? '');
  const [op, setOp] = useState<string>('eq');
  const [value, setValue] = useState('');
  const label = (name: string) => columns.find((c) => c.name === name)?.label ?? name;
  const add = (e: FormEvent) => {
    e.preventDefault();
    if (!column) return;
    onAdd(`${column}_${op}`, value);
    setValue('');
  };
  return (
    <div className="filters">
      <form className="filter-row" onSubmit={add} aria-label="Add filter">
        <select aria-label="Filter column" value={column} onChange={(e) => setColumn(e.target.value)}>
          {usable.map((c) => (
            <option key={c.name} value={c.name}>{c.label}</option>
          ))}
        </select>
        <select aria-label="Filter operator" value={op} onChange={(e) => setOp(e.target.value)}>
          {operators.map((o) => (
            <option key={o} value={o}>{opLabels[o]}</option>
          ))}
        </select>
        <input aria-label="Filter value" placeholder={op === 'in' ? 'a,b,c' : 'value'} value={value} onChange={(e) => setValue(e.target.value)} />
        <button type="submit">Add filter</button>
      </form>
      {filters.length > 0 && (
        <ul className="chips">
          {filters.map((f) => (
            <li key={f.param} className="chip">
              {label(f.column)} {opLabels[f.op]} “{f.value}”
              <button type="button" className="icon-button" aria-label={`Remove filter ${f.param}`} onClick={() => onRemove(f.param)}>
                <X size={12} aria-hidden="true" />
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
