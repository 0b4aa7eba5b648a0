import { useEffect, useState } from 'react';
import * as Popover from '@radix-ui/react-popover';
import { Command } from 'cmdk';
import { useInfiniteQuery } from '@tanstack/react-query';
import { ChevronsUpDown, X } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import { client, errorText, pageOf, query, type Column, type ResourceMeta, type Row } from '../api';

const pageSize = 20;

// optionLabel is how a target row reads in the picker: its label column
// (the catalog's linkTo.labelColumn), else its id.
function optionLabel(target: ResourceMeta, labelColumn: string | undefined, row: Row): string {
  const id = String(row[target.primaryKey[0] ?? ''] ?? '');
  const label = labelColumn ? row[labelColumn] : undefined;
  return label === undefined || label === null || label === '' ? id : String(label);
}

// ForeignKeyPicker picks a row of the target resource of a foreign key:
// typing searches it (_q), keyset-paged (_limit, X-Next-Cursor) with a
// "More" entry, and each option shows the target's label. The value is
// the raw id as text, as the form keeps every input.
export function ForeignKeyPicker({ id, col, target, value, label, disabled, onChange }: {
  id: string;
  col: Column;
  target: ResourceMeta;
  value: string;
  label?: string;
  disabled: boolean;
  onChange: (id: string, label: string) => void;
}) {
  const { t } = useTranslation('form');
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  useEffect(() => {
    const t = setTimeout(() => setQ(typed.trim()), 200);
    return () => clearTimeout(t);
  }, [typed]);
  const labelColumn = col.linkTo?.labelColumn;
  const pk = target.primaryKey[0] ?? 'id';
  // Keyset pages need a NOT NULL order: the label when it is one, else
  // the key.
  const labelCol = target.columns.find((c) => c.name === labelColumn);
  const sort = labelCol?.notNull && labelCol.sortable !== false ? labelCol.name : pk;
  const pages = useInfiniteQuery({
    queryKey: ['pick', target.name, q],
    enabled: open,
    initialPageParam: '',
    queryFn: ({ pageParam }) => {
      const p = new URLSearchParams({ _limit: String(pageSize), _sort: sort, _order: 'asc' });
      if (q) p.set('_q', q);
      if (pageParam) p.set('_cursor', pageParam);
      return pageOf(client.GET('/{resource}', { params: { path: { resource: target.name } }, querySerializer: query(p) }));
    },
    getNextPageParam: (last) => last.next || undefined,
  });
  const rows = pages.data?.pages.flatMap((p) => p.rows) ?? [];
  const shown = value === '' ? '' : label || value;
  // The first match is highlighted as results arrive, so typing and Enter
  // picks it (cmdk does not move its selection when the items are
  // replaced, as they are by each search).
  const first = String(rows[0]?.[pk] ?? '');
  // An Enter typed before the results are those of what was typed would
  // pick from the previous search: it waits, and picks the first result
  // once they arrive.
  const settled = typed.trim() === q && !(pages.isFetching && !pages.isFetchingNextPage);
  const [pendingEnter, setPendingEnter] = useState(false);
  useEffect(() => {
    if (!pendingEnter || !settled) return;
    setPendingEnter(false);
    const r = rows[0];
    if (r) {
      onChange(String(r[pk] ?? ''), optionLabel(target, labelColumn, r));
      setOpen(false);
    }
  }, [pendingEnter, settled, rows, pk, target, labelColumn, onChange]);
  const [active, setActive] = useState('');
  useEffect(() => setActive(first), [first]);

  return (
    <div className="fk-picker">
      <Popover.Root open={open} onOpenChange={setOpen}>
        <Popover.Trigger asChild disabled={disabled}>
          <button type="button" id={id} className="fk-trigger" role="combobox" aria-expanded={open} aria-haspopup="listbox">
            <span className={shown ? undefined : 'muted'}>{shown || t('Choose…')}</span>
            {shown && shown !== value && <span className="muted mono fk-id">{value}</span>}
            <ChevronsUpDown size={14} aria-hidden="true" />
          </button>
        </Popover.Trigger>
        <Popover.Portal>
          <Popover.Content className="fk-popover" align="start" sideOffset={4} aria-label={t('Choose {{field}}', { field: col.label })}>
            <Command shouldFilter={false} label={t('Search {{resource}}', { resource: target.label })} value={active} onValueChange={setActive}>
              <Command.Input value={typed} onValueChange={setTyped}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' && !settled) {
                    e.preventDefault();
                    setPendingEnter(true);
                  }
                }} placeholder={t('Search {{resource}}…', { resource: target.label.toLowerCase() })} aria-label={t('Search {{resource}}', { resource: target.label })} />
              <Command.List>
                {pages.isPending && <Command.Loading>{t('Loading…')}</Command.Loading>}
                {pages.isError && <div className="form-error fk-note">{errorText(pages.error)}</div>}
                {pages.isSuccess && rows.length === 0 && <Command.Empty>{t('No match.')}</Command.Empty>}
                {rows.map((r) => {
                  const rid = String(r[pk] ?? '');
                  const text = optionLabel(target, labelColumn, r);
                  return (
                    <Command.Item
                      key={rid}
                      value={rid}
                      onSelect={() => {
                        onChange(rid, text);
                        setOpen(false);
                      }}
                    >
                      <span>{text}</span>
                      {text !== rid && <span className="muted mono fk-id">{rid}</span>}
                    </Command.Item>
                  );
                })}
                {pages.hasNextPage && (
                  <Command.Item value="__more" onSelect={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
                    {pages.isFetchingNextPage ? t('Loading…') : t('More…')}
                  </Command.Item>
                )}
              </Command.List>
            </Command>
          </Popover.Content>
        </Popover.Portal>
      </Popover.Root>
      {value !== '' && !col.notNull && !disabled && (
        <button type="button" className="icon-button" aria-label={t('Clear {{field}}', { field: col.label })} onClick={() => onChange('', '')}>
          <X size={14} aria-hidden="true" />
        </button>
      )}
    </div>
  );
}
