import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { useTranslation } from 'react-i18next';
import { client, dataOf, errorText, type ResourceMeta } from '../api';
import { useCatalog, useMe } from '../queries';
import { ErrorNote, Loading } from '../components/Status';

// A mod's row scope (ResourceConfig.ScopeColumn, Moderation.SetRowScope):
// the values of each scoped resource's column whose rows the mod sees.
// RowScopeControl edits it on a user's page (admins only, through
// GET and PUT /users/{id}/row-scope); ScopeNote tells a row-scoped mod,
// on a scoped resource's list, which rows it shows.

// scopedResources are the catalog's resources that name a scope column.
function scopedResources(catalog: ResourceMeta[] | undefined): ResourceMeta[] {
  return (catalog ?? []).filter((r) => !!r.scopeColumn);
}

// parseValues reads the values input: comma-separated, trimmed, each once.
function parseValues(text: string): string[] {
  return [...new Set(text.split(',').map((v) => v.trim()).filter((v) => v !== ''))];
}

export function RowScopeControl({ userId, name }: { userId: string; name: string }) {
  const { t } = useTranslation('moderation');
  const me = useMe();
  const catalog = useCatalog();
  const qc = useQueryClient();
  const scoped = scopedResources(catalog.data);
  const enabled = me.data?.role === 'admin' && scoped.length > 0;
  const current = useQuery({
    queryKey: ['row-scope', userId],
    queryFn: () => dataOf(client.GET('/users/{id}/row-scope', { params: { path: { id: userId } } })),
    enabled,
  });
  const [edit, setEdit] = useState<{ every: boolean; text: string } | null>(null);
  const save = useMutation({
    mutationFn: (values: string[] | null) => dataOf(client.PUT('/users/{id}/row-scope', { params: { path: { id: userId } }, body: { values } })),
    onSuccess: (r) => {
      qc.setQueryData(['row-scope', userId], r);
      setEdit(null);
      toast.success(
        r.values === null
          ? t('{{name}} sees every row', { name })
          : r.values.length === 0
            ? t('{{name}} sees the rows of no value', { name })
            : t('{{name}} sees the rows of {{values}}', { name, values: r.values.join(', ') }),
      );
    },
  });
  if (!enabled) return null;
  if (current.isPending) return <Loading />;
  if (current.isError) return <ErrorNote error={current.error} />;
  const savedValues = current.data.values ?? null;
  const saved = { every: savedValues === null, text: (savedValues ?? []).join(', ') };
  const v = edit ?? saved;
  const values = v.every ? null : parseValues(v.text);
  const changed = v.every !== saved.every || (!v.every && parseValues(v.text).join() !== (savedValues ?? []).join());
  const columns = [...new Set(scoped.map((r) => r.scopeColumn))].join(', ');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(values);
  };
  return (
    <form className="role-control row-scope" onSubmit={submit} aria-labelledby="row-scope-title">
      <h3 id="row-scope-title">{t('Row scope')}</h3>
      <p className="muted">
        {t('A mod with a row scope sees and changes only the rows whose {{columns}} is one of its values, in {{resources}}; every other row is, for them, as if it did not exist. Admins are never narrowed.', {
          columns,
          resources: scoped.map((r) => r.label).join(', '),
        })}
      </p>
      <label className="check">
        <input type="checkbox" name="every-row" checked={v.every} onChange={(e) => setEdit({ ...v, every: e.target.checked })} />
        {t('Every row (no row scope)')}
      </label>
      {!v.every && (
        <div className="inline-field">
          <label htmlFor="row-scope-values">{t('Values')}</label>
          <input id="row-scope-values" name="row-scope-values" value={v.text} placeholder={t('alpha, beta')} onChange={(e) => setEdit({ ...v, text: e.target.value })} />
        </div>
      )}
      {!v.every && values !== null && values.length === 0 && <p className="muted">{t('No values: this mod sees none of these rows.')}</p>}
      {save.isError && <p className="form-error" role="alert">{errorText(save.error)}</p>}
      <div className="toolbar">
        <button type="submit" className="primary" disabled={!changed || save.isPending}>{t('Save row scope')}</button>
        {changed && <button type="button" onClick={() => setEdit(null)}>{t('Cancel')}</button>}
      </div>
    </form>
  );
}

// ScopeNote says, on the list of a resource with a scope column, which
// rows a row-scoped mod sees; nothing for anyone else.
export function ScopeNote({ meta }: { meta: ResourceMeta }) {
  const { t } = useTranslation('moderation');
  const me = useMe();
  const rows = me.data?.rows;
  if (!meta.scopeColumn || rows === undefined || rows === null) return null;
  const column = meta.columns.find((c) => c.name === meta.scopeColumn);
  const label = column?.label ?? meta.scopeColumn;
  return (
    <p className="muted scope-note" role="note">
      {rows.length === 0
        ? t('Your row scope holds no value: you see no {{resource}}.', { resource: meta.label.toLowerCase() })
        : t('You see the rows whose {{column}} is {{values}}; the others are not shown to you.', { column: label, values: rows.join(` ${t('or')} `) })}
    </p>
  );
}
