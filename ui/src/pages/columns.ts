import type { Column, ResourceMeta } from '../api';

// pick returns the columns named (in that order), or all columns.
export function pick(meta: ResourceMeta, names: string[] | undefined): Column[] {
  if (!names || names.length === 0) return meta.columns;
  return names.flatMap((n) => meta.columns.filter((c) => c.name === n));
}

// listColumns are the list's columns: primary keys are always included.
export function listColumns(meta: ResourceMeta): Column[] {
  const cols = pick(meta, meta.listColumns);
  const missing = meta.primaryKey.filter((k) => !cols.some((c) => c.name === k));
  return [...missing.flatMap((k) => meta.columns.filter((c) => c.name === k)), ...cols];
}
