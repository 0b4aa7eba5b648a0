import type { ResourceMeta, Row } from './api';
import { stringifyJSON } from './json';

// rowId is the :id of a row in URLs: the value of a single primary key, or
// the unpadded base64url of the JSON array of a composite key's values.
export function rowId(meta: Pick<ResourceMeta, 'primaryKey'>, row: Row): string {
  if (meta.primaryKey.length === 1) {
    return String(row[meta.primaryKey[0] ?? ''] ?? '');
  }
  const json = stringifyJSON(meta.primaryKey.map((k) => row[k] ?? null));
  let bin = '';
  for (const b of new TextEncoder().encode(json)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

// rowTitle names a row in headings: its key as in the URL, or for a
// composite key the values themselves (a foreign key by its label), since
// the base64url id means nothing to a reader.
export function rowTitle(meta: Pick<ResourceMeta, 'primaryKey'>, id: string, row: Row | undefined): string {
  if (meta.primaryKey.length === 1 || !row) return id;
  return meta.primaryKey.map((k) => row._labels?.[k] || String(row[k] ?? '')).join(' · ');
}
