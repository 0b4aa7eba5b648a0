import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react';
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';
import { ArrowDown, ArrowUp } from 'lucide-react';
import { Link, useLocation, useNavigate, useNavigationType } from 'react-router';
import { useTranslation } from 'react-i18next';
import { seg, type Column, type ResourceMeta, type Row } from '../api';
import { rowId } from '../rowId';
import { BanCell, CellValue, ZoneNote } from './CellValue';
import { DataCards, phoneQuery } from './DataCards';
import { useMediaQuery } from '../theme';

export interface SortState {
  field: string;
  order: 'asc' | 'desc';
}

// DataTableProps are a list's rows and what the operator does with them,
// as a table or as cards.
export interface DataTableProps {
  meta: ResourceMeta;
  columns: Column[];
  rows: Row[];
  sort?: SortState;
  onSort?: (field: string) => void;
  rowMenu?: (row: Row) => ReactNode;
  selected?: ReadonlySet<string>;
  onSelect?: (ids: string[], on: boolean) => void;
}

// DataTable shows rows of a resource. Sorting is the server's: a header
// click calls onSort. The first column that is not a foreign key links to
// the row's show page (the first column when all are), so a composite key
// that starts with one (cloud saves: user_id, slot) keeps the link to its
// target, labelled, and the row is opened from the next column.
// With selected and onSelect, a first column of checkboxes selects rows
// (by rowId); its header selects the whole page.
//
// The keyboard (as in Linear and Gmail): the rows are one Tab stop (the
// row last focused, else the first); ↑/↓ or j/k move the focus from row
// to row, Enter opens the focused row, x toggles its selection. j and k
// also work from the page itself (focus on nothing, or on the main
// area, or on its heading), never while typing in a field. focusRow(wrap,
// 0) puts the focus on a row, for a list that keeps it there across
// pages. Back on a list (the browser's Back), the focus is on the row
// last focused there, and j goes on from it.
// At phone width (phoneQuery) the rows are cards (DataCards), with the
// same keyboard, selection, menu and sorting.
export function DataTable({ meta, columns, rows, sort, onSort, rowMenu, selected, onSelect }: DataTableProps) {
  const { t } = useTranslation('list');
  const defs = useMemo<ColumnDef<Row>[]>(() => {
    const linkAt = Math.max(0, columns.findIndex((c) => !c.linkTo));
    const cols: ColumnDef<Row>[] = columns.map((col, i) => ({
      id: col.name,
      header: () => (
        <>
          {col.label}
          <ZoneNote col={col} />
        </>
      ),
      cell: ({ row }) =>
        // The users' ban, from the catalog's banColumn (a JSON column, or
        // the server's _ban from a game's until-column): a badge.
        col.name === meta.banColumn ? (
          <BanCell ban={row.original[col.name]} />
        ) : i === linkAt && meta.permissions.read && meta.primaryKey.length > 0 ? (
          <Link to={`/${seg(meta.name)}/${seg(rowId(meta, row.original))}`} className="row-link">
            <CellValue col={col} row={row.original} noLink />
          </Link>
        ) : (
          <CellValue col={col} row={row.original} />
        ),
    }));
    if (selected && onSelect) {
      const ids = rows.map((r) => rowId(meta, r));
      const all = ids.length > 0 && ids.every((id) => selected.has(id));
      cols.unshift({
        id: '_select',
        header: () => (
          <input type="checkbox" aria-label={t('Select all rows on this page')} checked={all} disabled={ids.length === 0} onChange={(e) => onSelect(ids, e.target.checked)} />
        ),
        cell: ({ row }) => {
          const id = rowId(meta, row.original);
          return <input type="checkbox" aria-label={t('Select row {{id}}', { id })} checked={selected.has(id)} onChange={(e) => onSelect([id], e.target.checked)} />;
        },
      });
    }
    if (rowMenu) cols.push({ id: '_menu', header: '', cell: ({ row }) => rowMenu(row.original) });
    return cols;
  }, [columns, meta, rowMenu, rows, selected, onSelect, t]);
  const navigate = useNavigate();
  const phone = useMediaQuery(phoneQuery);
  const wrap = useRef<HTMLDivElement>(null);
  // The row last focused is kept for the page's address: back on it (Back),
  // the list puts the focus on that row again, and j goes on from there.
  const location = useLocation();
  const back = useNavigationType() === 'POP';
  const place = `${meta.name} ${location.pathname}${location.search}`;
  const [cursor, setCursor] = useState(() => (back ? (lastRow.get(place) ?? 0) : 0));
  const [restore, setRestore] = useState(() => back && lastRow.has(place));
  const at = Math.min(cursor, Math.max(0, rows.length - 1));
  const focused = (i: number, own: boolean) => {
    lastRow.set(place, i);
    if (lastRow.size > 50) lastRow.delete(lastRow.keys().next().value!);
    if (own) setCursor(i);
  };
  useEffect(() => {
    if (!restore || rows.length === 0) return;
    setRestore(false);
    const a = document.activeElement;
    if (!a || a === document.body || a.id === 'content') focusRow(wrap.current, at);
  }, [restore, rows.length, at]);
  const opens = meta.permissions.read && meta.primaryKey.length > 0;
  const onKey = (e: KeyboardEvent<HTMLElement> | globalThis.KeyboardEvent, fromPage = false) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || rows.length === 0 || typing(e.target)) return;
    const tr = (e.target as HTMLElement).closest?.('[data-row]');
    const here = tr ? Number((tr as HTMLElement).dataset.row) : at;
    const move = (to: number) => {
      e.preventDefault();
      focusRow(wrap.current, Math.max(0, Math.min(rows.length - 1, to)));
    };
    switch (e.key) {
      case 'ArrowDown':
        if (!fromPage) move(here + 1);
        return;
      case 'ArrowUp':
        if (!fromPage) move(here - 1);
        return;
      case 'j':
        return move(fromPage && !tr ? at : here + 1);
      case 'k':
        return move(fromPage && !tr ? at : here - 1);
      case 'Enter':
        // Only on the row itself: a link or button in it does its own.
        if (tr && e.target === tr && opens && rows[here]) {
          e.preventDefault();
          navigate(`/${seg(meta.name)}/${seg(rowId(meta, rows[here]))}`);
        }
        return;
      case 'x':
        if (tr && selected && onSelect && meta.primaryKey.length > 0 && rows[here]) {
          e.preventDefault();
          const id = rowId(meta, rows[here]);
          onSelect([id], !selected.has(id));
        }
        return;
    }
  };
  // j and k from the page: focus on nothing or on the main area.
  const onKeyRef = useRef(onKey);
  onKeyRef.current = onKey;
  useEffect(() => {
    const onDoc = (e: globalThis.KeyboardEvent) => {
      const a = document.activeElement;
      // The page's heading is the page too: the focus lands there after
      // a row was opened from another list (Layout).
      const page = a === null || a === document.body || a.id === 'content' || (a.tagName === 'H1' && !!a.closest('.content'));
      if ((e.key === 'j' || e.key === 'k') && page) onKeyRef.current(e, true);
    };
    document.addEventListener('keydown', onDoc);
    return () => document.removeEventListener('keydown', onDoc);
  }, []);
  const table = useReactTable({ data: rows, columns: defs, getCoreRowModel: getCoreRowModel(), manualSorting: true, getRowId: (r, i) => (meta.primaryKey.length > 0 ? rowId(meta, r) : String(i)) }); // a table without a key: rows by position
  if (phone) {
    return (
      <div className="cards-wrap" data-list ref={wrap}>
        <DataCards meta={meta} columns={columns} rows={rows} sort={sort} onSort={onSort} rowMenu={rowMenu} selected={selected} onSelect={onSelect} at={at} onCursor={focused} onKey={(e) => onKey(e)} />
      </div>
    );
  }
  return (
    <div className="table-wrap" data-list ref={wrap}>
      <table className="data-table" onKeyDown={(e) => onKey(e)}>
        <thead>
          {table.getHeaderGroups().map((hg) => (
            <tr key={hg.id}>
              {hg.headers.map((h) => {
                const sorted = sort?.field === h.column.id ? sort.order : undefined;
                const content = flexRender(h.column.columnDef.header, h.getContext());
                return (
                  <th key={h.id} className={h.column.id === '_select' ? 'select-cell' : undefined} aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}>
                    {onSort && h.column.id !== '_menu' && h.column.id !== '_select' && columns.find((c) => c.name === h.column.id)?.sortable !== false ? (
                      <button type="button" className="sort-button" onClick={() => onSort(h.column.id)}>
                        {content}
                        {sorted === 'asc' && <ArrowUp size={12} aria-hidden="true" />}
                        {sorted === 'desc' && <ArrowDown size={12} aria-hidden="true" />}
                      </button>
                    ) : (
                      content
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((r, i) => (
            <tr
              key={r.id}
              data-row={i}
              tabIndex={i === at ? 0 : -1}
              aria-selected={selected ? selected.has(r.id) : undefined}
              aria-keyshortcuts={i === at ? 'ArrowUp ArrowDown J K Enter X' : undefined}
              onFocus={(e) => focused(i, e.target === e.currentTarget)}
              className={selected?.has(r.id) ? 'selected' : undefined}
            >
              {r.getVisibleCells().map((c) => (
                <td key={c.id} className={c.column.id === '_menu' ? 'menu-cell' : c.column.id === '_select' ? 'select-cell' : undefined} onMouseEnter={cutTitle}>
                  {flexRender(c.column.columnDef.cell, c.getContext())}
                </td>
              ))}
            </tr>
          ))}
          {rows.length === 0 && (
            <tr>
              <td colSpan={defs.length} className="muted empty">{t('No rows.')}</td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

// lastRow is the row last focused in a list, by the list's resource and
// address (the newest 50 lists).
const lastRow = new Map<string, number>();

// focusRow focuses row n (a table row or a card) of the DataTable inside
// el.
export function focusRow(el: Element | null, n: number) {
  el?.querySelector<HTMLElement>(`[data-row="${n}"]`)?.focus();
}

// typing: the key goes to a field (or a widget of its own: a select, an
// editor), which keeps it.
function typing(t: EventTarget | null) {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  if (el.tagName === 'INPUT') return !['checkbox', 'radio', 'button', 'submit', 'reset'].includes((el as HTMLInputElement).type);
  return el.isContentEditable || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || !!el.closest?.('[role="dialog"], dialog, [role="menu"], [contenteditable="true"]');
}

// cutTitle gives a cell its whole text as a hover title when the column's
// width cap cut it (an ellipsis), and takes it away when it fits: measured
// as the pointer arrives, since the width depends on the screen. A cell
// whose content has a title of its own (an id behind a label) keeps that.
function cutTitle(e: MouseEvent<HTMLTableCellElement>) {
  const td = e.currentTarget;
  const cut = td.scrollWidth > td.clientWidth + 1;
  const text = (td.textContent ?? '').trim();
  if (cut && text !== '' && !td.querySelector('[title]')) td.title = text;
  else td.removeAttribute('title');
}
