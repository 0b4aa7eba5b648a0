import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { Plus, Search } from 'lucide-react';
import { toast } from 'sonner';
import { api, errorText, seg, type ResourceMeta, type Row } from '../api';
import { useResourceMeta } from '../queries';
import { rowId } from '../rowId';
import { ResourceIcon } from '../icons';
import { DataTable, type SortState } from '../components/DataTable';
import { FilterBar, filtersOf } from '../components/FilterBar';
import { Pagination } from '../components/Pagination';
import { RowMenu, type MenuItem } from '../components/RowMenu';
import { useConfirm } from '../components/ConfirmDialog';
import { useResourceAction } from '../components/useResourceAction';
import { ErrorNote, Loading } from '../components/Status';
import { NotAllowed } from '../components/NotAllowed';
import { listColumns } from './columns';

const pageSize = 25;

export function ResourceListPage() {
  const { resource } = useParams();
  const meta = useResourceMeta(resource);
  if (!meta) return <NotAllowed resource={resource ?? ''} />;
  if (!meta.permissions.list) return <NotAllowed resource={meta.name} label={meta.label} operation="list" />;
  return <ResourceList key={meta.name} meta={meta} />;
}

function ResourceList({ meta }: { meta: ResourceMeta }) {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [dialog, ask] = useConfirm();
  const runAction = useResourceAction(meta, ask);
  const columns = listColumns(meta);
  const page = Math.max(0, Number(params.get('page') ?? 0) || 0);

  const apiParams = new URLSearchParams(params);
  apiParams.delete('page');
  apiParams.set('_start', String(page * pageSize));
  apiParams.set('_end', String((page + 1) * pageSize));
  const list = useQuery({
    queryKey: ['list', meta.name, apiParams.toString()],
    queryFn: () => api.list('/' + seg(meta.name), apiParams),
    placeholderData: keepPreviousData,
    // Always refetched on arrival: what other screens did (a room kicked,
    // a user banned) shows up in the audit log and other lists at once.
    staleTime: 0,
  });

  const update = (fn: (p: URLSearchParams) => void) => {
    const next = new URLSearchParams(params);
    fn(next);
    setParams(next);
  };
  const sortParam = params.get('_sort');
  const sort: SortState | undefined = sortParam
    ? { field: sortParam, order: params.get('_order') === 'desc' ? 'desc' : 'asc' }
    : meta.defaultSort;
  const onSort = (field: string) =>
    update((p) => {
      const order = sort?.field === field && sort.order === 'asc' ? 'desc' : 'asc';
      p.set('_sort', field);
      p.set('_order', order);
      p.delete('page');
    });

  const perRow = meta.actions.filter((a) => a.perRow);
  const bulk = meta.actions.filter((a) => !a.perRow);
  const remove = async (row: Row) => {
    const id = rowId(meta, row);
    if (!(await ask({ title: `Delete this row of ${meta.label}?`, description: `Row ${id} is deleted for good.`, confirmLabel: 'Delete', danger: true }))) return;
    try {
      await api.del(`/${seg(meta.name)}/${seg(id)}`);
      toast.success('Deleted');
      await qc.invalidateQueries({ queryKey: ['list', meta.name] });
    } catch (err) {
      toast.error(errorText(err));
    }
  };
  const rowMenu = (row: Row) => {
    const id = rowId(meta, row);
    const items: MenuItem[] = [];
    if (meta.permissions.read) items.push({ label: 'View', onSelect: () => navigate(`/${seg(meta.name)}/${seg(id)}`) });
    if (meta.permissions.update) items.push({ label: 'Edit', onSelect: () => navigate(`/${seg(meta.name)}/${seg(id)}/edit`) });
    for (const a of perRow) items.push({ label: a.label, onSelect: () => void runAction(a, id) });
    if (meta.permissions.delete) items.push({ label: 'Delete', danger: true, onSelect: () => void remove(row) });
    return <RowMenu items={items} label={`Actions for row ${id}`} />;
  };

  return (
    <section>
      <div className="page-title">
        <h1>
          <ResourceIcon name={meta.icon} size={20} /> {meta.label}
        </h1>
        <div className="toolbar">
          {bulk.map((a) => (
            <button key={a.name} type="button" onClick={() => void runAction(a)}>
              {a.label}
            </button>
          ))}
          {meta.permissions.create && (
            <Link to={`/${seg(meta.name)}/new`} className="button primary">
              <Plus size={14} aria-hidden="true" /> Create
            </Link>
          )}
        </div>
      </div>
      <SearchBox
        key={params.get('_q') ?? ''}
        initial={params.get('_q') ?? ''}
        onSearch={(q) =>
          update((p) => {
            if (q) p.set('_q', q);
            else p.delete('_q');
            p.delete('page');
          })
        }
      />
      <FilterBar
        columns={meta.columns}
        filters={filtersOf(params, meta.columns)}
        onAdd={(param, value) =>
          update((p) => {
            p.set(param, value);
            p.delete('page');
          })
        }
        onRemove={(param) =>
          update((p) => {
            p.delete(param);
            p.delete('page');
          })
        }
      />
      {list.isError && <ErrorNote error={list.error} />}
      {list.isPending ? (
        <Loading />
      ) : list.data ? (
        <>
          <DataTable meta={meta} columns={columns} rows={list.data.rows} sort={sort} onSort={onSort} rowMenu={rowMenu} />
          <Pagination
            page={page}
            pageSize={pageSize}
            total={list.data.total}
            estimated={list.data.estimated}
            onPage={(n) => update((p) => (n > 0 ? p.set('page', String(n)) : p.delete('page')))}
            onCountExactly={() => update((p) => p.set('_count', 'exact'))}
          />
        </>
      ) : null}
      {dialog}
    </section>
  );
}

function SearchBox({ initial, onSearch }: { initial: string; onSearch: (q: string) => void }) {
  return (
    <form
      className="search"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(String(new FormData(e.currentTarget).get('q') ?? '').trim());
      }}
    >
      <Search size={14} aria-hidden="true" />
      <input type="search" name="q" aria-label="Search" placeholder="Search…" defaultValue={initial} />
      <button type="submit">Search</button>
    </form>
  );
}
