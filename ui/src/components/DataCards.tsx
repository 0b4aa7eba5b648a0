import type { KeyboardEvent } from 'react';
import { ArrowDown, ArrowUp } from 'lucide-react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { seg, type Column, type ResourceMeta, type Row } from '../api';
import { rowId } from '../rowId';
import { rowLabel, singular } from '../names';
import { isTimeColumn } from '../pages/formValues';
import { BanCell, CellValue, ZoneNote } from './CellValue';
import { formatTime } from '../time';
import { useAuditEntryName } from '../auditWords';
import type { DataTableProps } from './DataTable';

// phoneQuery is the width below which a list shows its rows as cards: a
// table there shows two columns and hides the rest off to the right.
export const phoneQuery = '(max-width: 640px)';

// The audit log's card says what happened, to whom, by whom and when.
const auditFields = ['target_id', 'operator_id'];

// cardFields are the columns a row's card shows under its title: for the
// audit log its target (linked to the row's history) and operator, the
// title saying what happened and when; otherwise the first three list columns that are not
// the title itself nor the key (ids stay available on the title's hover),
// and a time column when the list has one, so a phone still says when.
// A soft-delete list's Deleted view shows when each row was deleted.
export function cardFields(meta: ResourceMeta, columns: Column[], titleColumn?: string): Column[] {
  if (meta.name === 'adminAudit') return auditFields.flatMap((n) => columns.filter((c) => c.name === n));
  if (meta.primaryKey.length === 0) return columns.slice(1, 5);
  const rest = columns.filter((c) => c.name !== titleColumn && !meta.primaryKey.includes(c.name));
  const out = rest.slice(0, 3);
  const time = rest.find((c) => isTimeColumn(c) && c.name !== meta.softDeleteColumn);
  if (time && !out.includes(time)) out.push(time);
  const soft = rest.find((c) => c.name === meta.softDeleteColumn);
  if (soft && !out.includes(soft)) out.push(soft);
  return out;
}

// titleOf is a card's title and the column it comes from: the row's
// label (a name or an email), or for a row known by its key alone the
// resource's singular and the key ("Match 12"). An audit entry is named
// by what it records and when (entryName), not by its number.
function titleOf(meta: ResourceMeta, id: string, row: Row, entryName: (entry: Row) => string): { text: string; column?: string } {
  const text = rowLabel(meta, id, row);
  const column = meta.columns.find((c) => ['display_name', 'name', 'email', 'title'].includes(c.name) && row[c.name] === text)?.name;
  if (column || meta.primaryKey.length !== 1 || text !== id) return { text, column };
  return { text: meta.name === 'adminAudit' ? entryName(row) : `${singular(meta.label)} ${id}` };
}

// wide: a value too long for half a card (an email, a sentence, a date
// with its time) takes the card's whole width, so it breaks between
// words rather than inside one.
function wide(col: Column, row: Row): boolean {
  const v = row[col.name];
  if (v === null || v === undefined || col.dataType === 'json') return false;
  // Half a card at 390 px holds about 20 characters; a date's digits and
  // spaces are narrower than an email's letters.
  if (isTimeColumn(col)) return formatTime(v).length > 21;
  const text = col.linkTo ? row._labels?.[col.name] || String(v) : String(v);
  return text.length > 19;
}

// DataCards is DataTable at phone width: each row a card with its title
// (the link to the row), its menu and its key fields, label above value,
// so nothing needs a sideways scroll. The keyboard is the table's
// (onKey): a card is a row, data-row says which.
export function DataCards({ meta, columns, rows, sort, onSort, rowMenu, selected, onSelect, at, onCursor, onKey }: DataTableProps & {
  at: number;
  // onCursor: the focus went to card i (own: to the card itself, not to
  // a link or a box in it).
  onCursor: (i: number, own: boolean) => void;
  onKey: (e: KeyboardEvent<HTMLElement>) => void;
}) {
  const { t } = useTranslation('list');
  const entryName = useAuditEntryName();
  const keyed = meta.primaryKey.length > 0;
  const opens = meta.permissions.read && keyed;
  const ids = rows.map((r) => (keyed ? rowId(meta, r) : ''));
  const all = ids.length > 0 && ids.every((id) => selected?.has(id));
  const sortable = onSort ? columns.filter((c) => c.sortable !== false) : [];
  const sortLabel = columns.find((c) => c.name === sort?.field)?.label;
  return (
    <>
      {(sortable.length > 0 || (selected && onSelect)) && (
        <div className="card-bar">
          {selected && onSelect && (
            <label className="inline-label">
              <input type="checkbox" checked={all} disabled={ids.length === 0} onChange={(e) => onSelect(ids, e.target.checked)} /> {t('Select all on this page')}
            </label>
          )}
          {sortable.length > 0 && onSort && (
            <span className="card-sort">
              <label className="inline-label">
                {t('Sort by')}
                <select value={sort?.field ?? ''} onChange={(e) => e.target.value && onSort(e.target.value)}>
                  {!sort && <option value="">—</option>}
                  {sortable.map((c) => (
                    <option key={c.name} value={c.name}>{c.label}</option>
                  ))}
                </select>
              </label>
              {sort && (
                <button type="button" className="icon-button" onClick={() => onSort(sort.field)} aria-label={sort.order === 'asc'
                  ? t('{{column}}: ascending; reverse the order', { column: sortLabel ?? sort.field })
                  : t('{{column}}: descending; reverse the order', { column: sortLabel ?? sort.field })}>
                  {sort.order === 'asc' ? <ArrowUp size={14} aria-hidden="true" /> : <ArrowDown size={14} aria-hidden="true" />}
                </button>
              )}
            </span>
          )}
        </div>
      )}
      {rows.length === 0 ? (
        <p className="muted empty data-cards-empty">{t('No rows.')}</p>
      ) : (
        <ul className="data-cards" onKeyDown={onKey}>
          {rows.map((row, i) => {
            const id = ids[i] ?? '';
            const title = keyed ? titleOf(meta, id, row, entryName) : undefined;
            const fields = cardFields(meta, columns, title?.column);
            const first = columns[0];
            return (
              <li
                key={keyed ? id : i}
                data-row={i}
                tabIndex={i === at ? 0 : -1}
                aria-keyshortcuts={i === at ? 'ArrowUp ArrowDown J K Enter X' : undefined}
                onFocus={(e) => onCursor(i, e.target === e.currentTarget)}
                className={'data-card' + (selected?.has(id) ? ' selected' : '')}
              >
                <div className="card-head">
                  {selected && onSelect && (
                    <input type="checkbox" aria-label={t('Select row {{id}}', { id })} checked={selected.has(id)} onChange={(e) => onSelect([id], e.target.checked)} />
                  )}
                  <span className={'card-title' + (meta.name === 'adminAudit' ? ' sentence' : '')}>
                    {title && opens ? (
                      <Link to={`/${seg(meta.name)}/${seg(id)}`} className="row-link" title={id}>{title.text}</Link>
                    ) : title ? (
                      <span title={id}>{title.text}</span>
                    ) : first ? (
                      // A table without a key: its first column leads.
                      <CellValue col={first} row={row} />
                    ) : null}
                  </span>
                  {rowMenu?.(row)}
                </div>
                {fields.length > 0 && (
                  <dl className="card-fields">
                    {fields.map((col) => (
                      <div key={col.name} className={wide(col, row) ? 'wide' : undefined}>
                        <dt>{col.label}<ZoneNote col={col} /></dt>
                        <dd>{col.name === meta.banColumn ? <BanCell ban={row[col.name]} /> : <CellValue col={col} row={row} />}</dd>
                      </div>
                    ))}
                  </dl>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </>
  );
}
