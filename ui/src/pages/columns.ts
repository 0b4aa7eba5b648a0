import type { Column, ResourceMeta } from '../api';
import { labelColumns } from '../names';
import i18n from '../i18n';

// The texts of this module are said outside components: their catalog
// loads with it, and again with each language chosen later.
void i18n.loadNamespaces('list');

// pick returns the columns named (in that order), or all columns.
export function pick(meta: ResourceMeta, names: string[] | undefined): Column[] {
  if (!names || names.length === 0) return meta.columns;
  return names.flatMap((n) => meta.columns.filter((c) => c.name === n));
}

// idField: a key column that is only an id (no link, not a word a person
// chose: a uuid, an "id", a generated number). Lists and pages show it
// last: there to copy or hover, not to read first.
export function idField(c: Column): boolean {
  return c.primary && !c.linkTo && (c.kind === 'uuid' || c.name === 'id' || (c.kind === 'number' && c.hasDefault));
}

// listColumns are the list's columns: primary keys are always included,
// ids after the columns a person reads (the row's link is then on its
// label, a guild's name).
export function listColumns(meta: ResourceMeta): Column[] {
  const cols = pick(meta, meta.listColumns);
  const missing = meta.primaryKey.filter((k) => !cols.some((c) => c.name === k));
  const all = [...missing.flatMap((k) => meta.columns.filter((c) => c.name === k)), ...cols];
  if (all.every(idField)) return all;
  return [...all.filter((c) => !idField(c)), ...all.filter(idField)];
}

// banField is the users list's Ban column when the catalog's banColumn is
// no column of the table (the server's _ban, read from a game's own
// until-column): a field of every row, shown as the JSON ban column is.
// Its label is the panel's own (in the operator's language), unlike the
// catalog's column labels.
export function banField(meta: ResourceMeta): Column | undefined {
  const name = meta.banColumn;
  if (!name || meta.columns.some((c) => c.name === name)) return undefined;
  return { name, label: i18n.t('Ban', { ns: 'list' }), type: '', dataType: 'json', notNull: false, primary: false, hasDefault: false, readOnly: true, sortable: false, filterable: false, kind: 'json', required: false };
}

// tableColumns are listColumns with the users' Ban field at the end, and,
// in a soft-delete list's Deleted view, its soft-delete column (when the
// list leaves it out): when each row was deleted.
export function tableColumns(meta: ResourceMeta, deletedView = false): Column[] {
  const cols = listColumns(meta);
  const ban = banField(meta);
  if (ban) cols.push(ban);
  const soft = deletedView ? meta.columns.find((c) => c.name === meta.softDeleteColumn) : undefined;
  if (soft && !cols.some((c) => c.name === soft.name)) cols.push(soft);
  return cols;
}

// listFields are the columns a list page asks the server for (_fields):
// those it shows (tableColumns), the key, and those its rows' names,
// links and states read (the label columns, the email an erase writes,
// the username that names an account, the soft-delete and ban columns,
// a link's resource column). A column
// it does not show, a player's save document, is then not read at all.
export function listFields(meta: ResourceMeta, deletedView = false): string[] {
  const shown = tableColumns(meta, deletedView);
  const names = new Set<string>([...meta.primaryKey, ...shown.map((c) => c.name), ...labelColumns, meta.emailColumn ?? 'email']);
  for (const c of shown) if (c.linkTo?.resourceFromColumn) names.add(c.linkTo.resourceFromColumn);
  if (meta.softDeleteColumn) names.add(meta.softDeleteColumn);
  if (meta.banColumn) names.add(meta.banColumn);
  // An account without a display name is named by its username.
  if (meta.usernameColumn) names.add(meta.usernameColumn);
  // Only the catalog's columns: the users' _ban is the server's own field.
  return meta.columns.filter((c) => names.has(c.name)).map((c) => c.name);
}
