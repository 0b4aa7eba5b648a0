import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { api, errorText, seg, type Column, type ResourceMeta, type Row } from '../api';
import { useResourceMeta } from '../queries';
import { rowId, rowTitle } from '../rowId';
import { ErrorNote, Loading } from '../components/Status';
import { NotAllowed } from '../components/NotAllowed';
import { pick } from './columns';
import { FieldError, initialValue, toValue, type FormValue } from './formValues';

export function ResourceFormPage({ mode }: { mode: 'create' | 'edit' }) {
  const { resource, id } = useParams();
  const meta = useResourceMeta(resource);
  if (!meta) return <NotAllowed resource={resource ?? ''} />;
  if (mode === 'create') {
    if (!meta.permissions.create) return <NotAllowed resource={meta.name} label={meta.label} operation="create" />;
    return <ResourceForm key={meta.name} meta={meta} />;
  }
  if (!meta.permissions.update || id === undefined) return <NotAllowed resource={meta.name} label={meta.label} operation="edit" />;
  return <EditLoader key={meta.name + '/' + id} meta={meta} id={id} />;
}

function EditLoader({ meta, id }: { meta: ResourceMeta; id: string }) {
  const row = useQuery({ queryKey: ['row', meta.name, id], queryFn: () => api.get<Row>(`/${seg(meta.name)}/${seg(id)}`) });
  if (row.isPending) return <Loading />;
  if (row.isError) return <ErrorNote error={row.error} />;
  return <ResourceForm meta={meta} id={id} row={row.data} />;
}

// formColumns are the form's fields. Create leaves out what the database
// fills in (columns with a default, generated keys included) and read-only
// columns; a key without a default must be typed in, so it stays. Binary
// columns are never editable.
function formColumns(meta: ResourceMeta, creating: boolean): Column[] {
  return pick(meta, meta.formFields).filter((c) => {
    if (c.dataType === 'bytes') return false;
    if (creating) return !c.hasDefault && !c.readOnly;
    return true;
  });
}

function ResourceForm({ meta, id, row }: { meta: ResourceMeta; id?: string; row?: Row }) {
  const creating = row === undefined;
  const navigate = useNavigate();
  const qc = useQueryClient();
  const columns = formColumns(meta, creating);
  const initial = Object.fromEntries(columns.map((c) => [c.name, initialValue(c, row?.[c.name])]));
  const [values, setValues] = useState<Record<string, FormValue>>(initial);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const locked = (c: Column) => !creating && (c.readOnly || c.primary);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const body: Record<string, unknown> = {};
    const errs: Record<string, string> = {};
    for (const c of columns) {
      const v = values[c.name] ?? '';
      if (locked(c)) continue;
      if (!creating && v === initial[c.name]) continue; // PATCH sends only changes
      if (creating && v === '' && !c.notNull) continue;
      try {
        body[c.name] = toValue(c, v);
      } catch (err) {
        if (err instanceof FieldError) errs[c.name] = err.message;
        else throw err;
      }
    }
    setFieldErrors(errs);
    setError('');
    if (Object.keys(errs).length > 0) return;
    if (!creating && Object.keys(body).length === 0) {
      setError('Nothing changed.');
      return;
    }
    setBusy(true);
    try {
      const saved = creating
        ? await api.post<Row>('/' + seg(meta.name), body)
        : await api.patch<Row>(`/${seg(meta.name)}/${seg(id ?? '')}`, body);
      await qc.invalidateQueries({ queryKey: ['list', meta.name] });
      const savedId = rowId(meta, saved);
      // The answer has no _labels: keep those of foreign keys left as
      // they were, and refetch for the rest.
      const labels = Object.fromEntries(Object.entries(row?._labels ?? {}).filter(([k]) => saved[k] === row?.[k]));
      qc.setQueryData(['row', meta.name, savedId], { ...saved, _labels: { ...labels, ...saved._labels } });
      await qc.invalidateQueries({ queryKey: ['row', meta.name, savedId] });
      navigate(`/${seg(meta.name)}/${seg(savedId || id || '')}`);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  const back = creating ? '/' + seg(meta.name) : `/${seg(meta.name)}/${seg(id ?? '')}`;
  return (
    <section>
      <div className="page-title">
        <h1>{creating ? `New ${meta.label}` : `Edit ${meta.label} / ${rowTitle(meta, id ?? '', row)}`}</h1>
      </div>
      <form className="record-form stack" onSubmit={submit} noValidate>
        {columns.map((c) => (
          <FieldInput
            key={c.name}
            col={c}
            value={values[c.name] ?? ''}
            disabled={locked(c)}
            error={fieldErrors[c.name]}
            onChange={(v) => setValues((s) => ({ ...s, [c.name]: v }))}
          />
        ))}
        {error && <p className="form-error" role="alert">{error}</p>}
        <div className="toolbar">
          <button type="submit" className="primary" disabled={busy}>{creating ? 'Create' : 'Save'}</button>
          <Link to={back} className="button">Cancel</Link>
        </div>
      </form>
    </section>
  );
}

function FieldInput({ col, value, disabled, error, onChange }: {
  col: Column;
  value: FormValue;
  disabled: boolean;
  error?: string;
  onChange: (v: FormValue) => void;
}) {
  const id = 'field-' + col.name;
  const text = typeof value === 'string' ? value : '';
  let input;
  switch (col.dataType) {
    case 'boolean':
      input = <input id={id} name={col.name} type="checkbox" checked={value === true} disabled={disabled} onChange={(e) => onChange(e.target.checked)} />;
      break;
    case 'integer':
    case 'number':
      input = <input id={id} name={col.name} type="number" step={col.dataType === 'integer' ? 1 : 'any'} value={text} disabled={disabled} onChange={(e) => onChange(e.target.value)} />;
      break;
    case 'datetime':
      input = <input id={id} name={col.name} type="datetime-local" step="1" value={text} disabled={disabled} onChange={(e) => onChange(e.target.value)} />;
      break;
    case 'json':
      input = <textarea id={id} name={col.name} className="mono" rows={6} value={text} disabled={disabled} onChange={(e) => onChange(e.target.value)} />;
      break;
    default:
      input = <input id={id} name={col.name} type="text" value={text} disabled={disabled} onChange={(e) => onChange(e.target.value)} />;
  }
  return (
    <div className={'form-field' + (col.dataType === 'boolean' ? ' checkbox' : '')}>
      <label htmlFor={id}>
        {col.label}
        {col.notNull && !col.hasDefault && col.dataType !== 'boolean' && !disabled && <span className="required"> *</span>}
        {disabled && <span className="muted"> (read-only)</span>}
      </label>
      {input}
      {error && <p className="form-error">{error}</p>}
    </div>
  );
}
