import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { ResourceMeta, Row } from './api';
import { rowOf, rowQuery } from './queries';
import { rowTitle } from './rowId';
import { erasedLabel, isErased } from './pages/userAccess';

// singular is the label of one row of a resource: "Roles" → "Role",
// "Leaderboard Entries" → "Leaderboard Entry". Only the last word changes;
// a label that is not a plural ("Audit log") stays as it is.
export function singular(label: string): string {
  const m = /^(.*?)(\w+)$/.exec(label);
  if (!m) return label;
  const [, head, word] = m as unknown as [string, string, string];
  const lower = word.toLowerCase();
  let one = word;
  if (/[^aeiou]ies$/.test(lower)) one = word.slice(0, -3) + 'y';
  else if (/(ss|sh|ch|x|z)es$/.test(lower)) one = word.slice(0, -2);
  else if (/[^su]s$/.test(lower)) one = word.slice(0, -1);
  return head + one;
}

// The columns that name a row, in the server's order of preference
// (relations.go labelColumns).
export const labelColumns = ['display_name', 'name', 'email', 'title'];

// rowLabel names a row for people: its display name, name, email or
// title when it has one, else its key as in the page heading. An account
// (the users resource) is named by its display name, then its username,
// then its email, as the server names it.
export function rowLabel(meta: ResourceMeta, id: string, row: Row | undefined): string {
  // An erased player's names are gone; "erased-…@erased.invalid" is none.
  if (isErased(meta, row)) return erasedLabel();
  const order = meta.users ? ['display_name', meta.usernameColumn ?? '', 'name', meta.emailColumn ?? 'email', 'title'] : labelColumns;
  for (const c of order) {
    if (!meta.columns.some((col) => col.name === c)) continue;
    const v = row?.[c];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return rowTitle(meta, id, row);
}

// usePageTitle sets the browser tab's title while the page is shown, in
// the operator's language (again when it changes).
export function usePageTitle(title: string | undefined) {
  const { t } = useTranslation('list');
  useEffect(() => {
    document.title = title ? t('{{title}} · Game admin', { title }) : t('Game admin');
  }, [title, t]);
}

// useRowLabel names the row id of meta (a picker's button, a filter's
// chip): its label, once read; undefined until then or when unreadable.
export function useRowLabel(meta: ResourceMeta | undefined, id: string): string | undefined {
  const row = useQuery({
    ...rowQuery(meta?.name ?? '', id),
    select: rowOf,
    enabled: !!meta && id !== '' && meta.permissions.read,
    retry: false,
  });
  return meta && row.data ? rowLabel(meta, id, row.data) : undefined;
}
