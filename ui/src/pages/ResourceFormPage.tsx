import { useEffect, useRef, useState, type FormEvent, type RefObject } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useBlocker, useNavigate, useParams, useSearchParams } from 'react-router';
import * as Switch from '@radix-ui/react-switch';
import { useTranslation } from 'react-i18next';
import { ApiError, client, errorText, fieldProblemText, isStale, rowParams, seg, versioned, writeHeaders, type Column, type ResourceMeta, type Row, type Versioned } from '../api';
import { rowQuery, useMe, useResourceMeta } from '../queries';
import { BanState } from './UserModeration';
import { FieldInput } from './FieldInput';
import { useConfirm } from '../components/ConfirmDialog';
import { rowId } from '../rowId';
import { rowLabel, singular, usePageTitle } from '../names';
import { ErrorNote, Loading } from '../components/Status';
import { NotAllowed } from '../components/NotAllowed';
import { pick } from './columns';
import { userEditRefusal } from './userAccess';
import { isDeleted } from './softDelete';
import { Lock } from 'lucide-react';
import { bothChanged, EditConflict, fieldConflicts, rebaseValues } from './EditConflict';
import { FieldError, initialValue, isDocumentColumn, toValue, type FormValue, isTimeColumn } from './formValues';
import { isDoc, mergePatch, type MergePatch } from '../jsonDiff';

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
  const me = useMe();
  const { t } = useTranslation('form');
  const row = useQuery(rowQuery(meta.name, id));
  if (row.isPending) return <Loading />;
  if (row.isError) return <ErrorNote error={row.error} />;
  // What the server would refuse on Save is said before any typing: the
  // form is shown read-only, with why.
  const refusal = userEditRefusal(me.data, meta, id, row.data.row) || (isDeleted(meta, row.data.row) ? t('This row is deleted: restore it from its page before editing.') : '');
  return <ResourceForm meta={meta} id={id} loaded={row.data} readOnly={refusal} />;
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

// loaded is the row edited, with its version (none: a new row). readOnly,
// when not empty, says why the operator may not change the row: every
// field is shown disabled and there is no Save.
function ResourceForm({ meta, id, loaded, readOnly = '' }: { meta: ResourceMeta; id?: string; loaded?: Versioned; readOnly?: string }) {
  // base is the row the form's fields started from, and its version: Save
  // sends If-Match with it, so it never overwrites a change the operator
  // did not see.
  const { t } = useTranslation('form');
  const [base, setBase] = useState(loaded);
  const row = base?.row;
  const creating = row === undefined;
  const navigate = useNavigate();
  const qc = useQueryClient();
  const columns = formColumns(meta, creating);
  // A new row may come with fields filled in by the link that opened the
  // form (?user_id=…&_label.user_id=…, a related tab's "Add …").
  const [params] = useSearchParams();
  const given = (c: Column) => (creating ? params.get(c.name) : null);
  const inputs = (r: Row | undefined) => Object.fromEntries(columns.map((c) => [c.name, given(c) ?? initialValue(c, r?.[c.name])]));
  const initial = inputs(row);
  const [values, setValues] = useState<Record<string, FormValue>>(initial);
  // conflict is the row as it is now, after a save refused because the row
  // changed since base (409); open while its dialog is shown. notice says
  // what became of the operator's changes once they chose.
  const [conflict, setConflict] = useState<{ now: Versioned; open: boolean } | null>(null);
  const [notice, setNotice] = useState('');
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  // Labels of foreign keys as shown: the row's, then what was picked.
  const [labels, setLabels] = useState<Record<string, string>>(() =>
    row?._labels ?? Object.fromEntries(columns.flatMap((c) => (given(c) !== null && params.get('_label.' + c.name) ? [[c.name, params.get('_label.' + c.name) ?? '']] : []))));
  // Timestamps the database fills in (created_at, updated_at) are shown,
  // not edited.
  const locked = (c: Column) => !creating && (readOnly !== '' || c.readOnly || c.primary || ((c.dataType === 'datetime' || isTimeColumn(c)) && c.hasDefault));
  const dirty = columns.some((c) => (values[c.name] ?? '') !== (initial[c.name] ?? ''));
  const [dialog, ask] = useConfirm();
  const leaving = useRef(false);
  // A new user gets a password, or (admins) an invite to choose one.
  const me = useMe();
  const newUser = creating && !!meta.users;
  const canInvite = newUser && me.data?.role === 'admin';
  const [password, setPassword] = useState('');
  const [invite, setInvite] = useState(false);
  useUnsavedPrompt(dirty || password !== '', leaving, ask);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    // The row changed under the form: a save would be refused again until
    // the operator chooses.
    if (conflict) return setConflict({ ...conflict, open: true });
    const body: Record<string, unknown> = {};
    // docs: each JSON column changed, as the merge patch of the change.
    const docs: Record<string, MergePatch> = {};
    const errs: Record<string, string> = {};
    for (const c of columns) {
      const v = values[c.name] ?? '';
      if (locked(c)) continue;
      // What the server would refuse, said before sending: a required
      // field left (or made) empty, text over its column's limit.
      const changed = creating || v !== initial[c.name];
      if (changed && c.required && !c.primary && c.dataType !== 'boolean' && typeof v === 'string' && v.trim() === '') {
        errs[c.name] = t('{{field}} is required', { field: fieldName(c) });
        continue;
      }
      if (changed && c.maxLength && typeof v === 'string' && [...v].length > c.maxLength) {
        errs[c.name] = t('At most {{count}} characters ({{now}} now)', { count: c.maxLength, now: [...v].length });
        continue;
      }
      if (!creating && v === initial[c.name]) continue; // PATCH sends only changes
      if (creating && v === '' && (!c.notNull || c.primary)) continue; // an empty key is made by the server
      try {
        const value = toValue(c, v);
        if (!creating && isDocumentColumn(c)) {
          // A document that differs in spacing or key order only is no change.
          const d = mergePatch(row?.[c.name], value);
          if (!d) continue;
          // Stored as text that is not JSON: the server cannot patch it.
          docs[c.name] = row?._invalid?.[c.name] ? { ...d, exact: false } : d;
        }
        body[c.name] = value;
      } catch (err) {
        if (err instanceof FieldError) errs[c.name] = err.message;
        else throw err;
      }
    }
    if (newUser && !(canInvite && invite)) {
      if ([...password].length < 8) errs.password = t('At least 8 characters.');
      else body.password = password;
    }
    setFieldErrors(errs);
    setError('');
    if (Object.keys(errs).length > 0) {
      focusFirst(columns, errs);
      return;
    }
    if (!creating && Object.keys(body).length === 0) {
      setError(t('Nothing changed.'));
      return;
    }
    // A JSON column is sent as the merge patch of what the operator changed
    // (keys set, removed keys null), which the database merges into the
    // stored document: a key the game wrote since the form opened stays.
    // A change a merge patch cannot say (a key set to null, which a merge
    // patch reads as "remove"; a document stored as text that is not JSON;
    // a patch past the server's bounds) sends the body as a plain PATCH,
    // every document whole: If-Match still keeps that from overwriting a
    // version the operator did not see.
    const patches = Object.values(docs);
    const merge = patches.some((d) => isDoc(d.patch)) && patches.every((d) => d.exact);
    if (merge) for (const [k, d] of Object.entries(docs)) body[k] = d.patch;
    setBusy(true);
    try {
      const { row: saved, etag } = creating
        ? await versioned(client.POST('/{resource}', { params: { path: { resource: meta.name } }, body }))
        : await versioned(client.PATCH('/{resource}/{id}', { params: rowParams(meta.name, id ?? ''), body, headers: writeHeaders({ ifMatch: base?.etag, merge }) }));
      await qc.invalidateQueries({ queryKey: ['list', meta.name] });
      const savedId = rowId(meta, saved);
      if (newUser && canInvite && invite) await client.POST('/users/{id}/invite', { params: { path: { id: savedId } } });
      // The answer has no _labels: keep those of foreign keys left as
      // they were, and refetch for the rest.
      const labels = Object.fromEntries(Object.entries(row?._labels ?? {}).filter(([k]) => saved[k] === row?.[k]));
      qc.setQueryData(rowQuery(meta.name, savedId).queryKey, { row: { ...saved, _labels: { ...labels, ...saved._labels } }, etag });
      await qc.invalidateQueries({ queryKey: ['row', meta.name, savedId] });
      await qc.invalidateQueries({ queryKey: ['history', meta.name, savedId] });
      leaving.current = true;
      navigate(`/${seg(meta.name)}/${seg(savedId || id || '')}`);
    } catch (err) {
      // The row changed since the form opened: nothing was written. The
      // operator sees what changed and chooses (EditConflict).
      if (isStale(err) && !creating) {
        setConflict({ now: { row: err.row, etag: err.etag }, open: true });
        setNotice('');
        setBusy(false);
        return;
      }
      // A field's error shows once, at the field; the banner is for the
      // rest (an error about no field, or one the form does not show).
      const shown = err instanceof ApiError ? Object.keys(err.fields).filter((k) => columns.some((c) => c.name === k) || k === 'password') : [];
      const elsewhere = !(err instanceof ApiError) || shown.length === 0 || shown.length < Object.keys(err.fields).length;
      setError(elsewhere ? errorText(err) : '');
      if (shown.length > 0 && err instanceof ApiError) {
        setFieldErrors(fieldMessages(err));
        focusFirst(columns, err.fields);
      }
      setBusy(false);
    }
  };

  const conflicts = conflict && row ? fieldConflicts(columns, row, conflict.now.row, initial, values) : [];
  // reapply lays the operator's changes over the row as it is now, whose
  // version the next Save sends.
  const reapply = () => {
    if (!conflict) return;
    const both = conflicts.filter(bothChanged).map((f) => f.col.label);
    setValues(rebaseValues(conflicts, values));
    // The 409's row has no labels: a foreign key changed under the form
    // (and not by the operator) shows its id.
    setLabels((l) => Object.fromEntries(Object.entries(l).filter(([k]) => !conflicts.some((f) => f.col.name === k && f.theirs && !f.mine))));
    setBase(conflict.now);
    setConflict(null);
    setFieldErrors({});
    setError('');
    setNotice(both.length > 0
      ? t('Your changes are re-applied to the row as it is now (where you both changed {{fields}}, yours is kept). Check them, then Save.', { fields: both.join(', ') })
      : t('Your changes are re-applied to the row as it is now. Check them, then Save.'));
  };
  // discard reloads the row and shows it without the operator's changes.
  const discard = async () => {
    if (!conflict) return;
    const fresh = await qc.fetchQuery({ ...rowQuery(meta.name, id ?? ''), staleTime: 0 }).catch(() => conflict.now);
    setBase(fresh);
    setValues(inputs(fresh.row));
    setLabels(fresh.row._labels ?? {});
    setConflict(null);
    setFieldErrors({});
    setError('');
    setNotice(t('Your changes were discarded: the form shows the row as it is now.'));
  };

  const back = creating ? '/' + seg(meta.name) : `/${seg(meta.name)}/${seg(id ?? '')}`;
  const thing = singular(meta.label);
  const heading = creating
    ? t('New {{thing}}', { thing })
    : readOnly
      ? `${thing} / ${rowLabel(meta, id ?? '', row)}`
      : t('Edit {{thing}} / {{row}}', { thing, row: rowLabel(meta, id ?? '', row) });
  usePageTitle(heading);
  return (
    <section>
      <div className="page-title">
        <h1>{heading}</h1>
      </div>
      {readOnly && (
        <p className="notice" role="note" data-testid="read-only-reason">
          <Lock size={14} aria-hidden="true" /> {readOnly}
        </p>
      )}
      {conflict && !conflict.open && (
        <div className="notice" role="alert">
          <span>{t('This row changed since you opened it: nothing was saved.')}</span>
          <button type="button" onClick={() => setConflict({ ...conflict, open: true })}>{t('See what changed')}</button>
        </div>
      )}
      {notice && <p className="notice notice-ok" role="status">{notice}</p>}
      <form className="record-form stack" onSubmit={submit} noValidate>
        {columns.map((c) => c.name === meta.banColumn && !creating ? (
          // The ban is changed by Ban and Unban, never typed: it reads
          // in words here, as on the user's page.
          <div key={c.name} className="form-field" role="group" aria-labelledby={'field-' + c.name}>
            <span id={'field-' + c.name} className="field-label">{c.label} <span className="muted">{t('(read-only)')}</span></span>
            <BanState ban={row?.[c.name] ?? null} short />
            <span className="muted hint">{t("Ban and unban from the user's page.")}</span>
          </div>
        ) : (
          <FieldInput
            key={c.name}
            col={c}
            value={values[c.name] ?? ''}
            disabled={locked(c)}
            error={fieldErrors[c.name]}
            label={labels[c.name]}
            onChange={(v, label) => {
              setValues((s) => ({ ...s, [c.name]: v }));
              if (label !== undefined) setLabels((s) => ({ ...s, [c.name]: label }));
            }}
          />
        ))}
        {newUser && (
          <fieldset className="new-password">
            <legend>{t('Password')}</legend>
            {canInvite && (
              <div className="form-field checkbox">
                <label htmlFor="field-invite">{t('Send an invite instead (they choose their own)')}</label>
                <Switch.Root id="field-invite" className="switch" checked={invite} onCheckedChange={setInvite}>
                  <Switch.Thumb className="switch-thumb" />
                </Switch.Root>
              </div>
            )}
            {!invite && (
              <div className="form-field">
                <label htmlFor="field-password">
                  {t('Initial password')}<span className="required"> *</span>
                </label>
                <input id="field-password" name="password" type="password" autoComplete="new-password" minLength={8} value={password} aria-describedby="field-password-hint"
                  aria-invalid={fieldErrors.password ? true : undefined}
                  onChange={(e) => {
                    setPassword(e.target.value);
                    setFieldErrors(({ password: _, ...rest }) => rest);
                  }} />
                <span id="field-password-hint" className="muted hint">{t('At least 8 characters; stored only as a hash.')}</span>
                {fieldErrors.password && <p className="form-error">{fieldErrors.password}</p>}
              </div>
            )}
          </fieldset>
        )}
        {error && <p className="form-error" role="alert">{error}</p>}
        <div className="toolbar">
          {readOnly ? (
            <Link to={back} className="button">{t('Back')}</Link>
          ) : (
            <>
              <button type="submit" className="primary" disabled={busy}>{creating ? t('Create') : t('Save')}</button>
              <Link to={back} className="button">{t('Cancel')}</Link>
            </>
          )}
        </div>
      </form>
      {dialog}
      {conflict?.open && (
        <EditConflict conflicts={conflicts} onReapply={reapply} onDiscard={() => void discard()} onClose={() => setConflict({ ...conflict, open: false })} />
      )}
    </section>
  );
}

// useUnsavedPrompt asks before leaving a form with unsaved changes: a
// link or Back inside the panel through the confirm dialog, a reload or
// closed tab through the browser's own prompt.
// leaving is set once the form is saved, before it navigates away.
function useUnsavedPrompt(dirty: boolean, leaving: RefObject<boolean>, ask: ReturnType<typeof useConfirm>[1]) {
  const { t } = useTranslation('form');
  const blocker = useBlocker(({ currentLocation, nextLocation }) => dirty && !leaving.current && currentLocation.pathname !== nextLocation.pathname);
  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    void ask({ title: t('Leave without saving?'), description: t('Your changes to this form are lost.'), confirmLabel: t('Leave'), danger: true }).then((ok) =>
      ok ? blocker.proceed() : blocker.reset(),
    );
  }, [blocker, ask, t]);
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);
}

// fieldMessages are the server's messages of err's fields, as the form
// shows them beside each field: in the operator's language from each
// field's problem (its code and parameters), else as the server said it.
function fieldMessages(err: ApiError): Record<string, string> {
  return Object.fromEntries(Object.entries(err.fields).map(([k, m]) => [k, fieldProblemText(err.problems?.[k], m)]));
}

// fieldName is how a field is named in a message: a foreign key by the
// row it picks ("Player", not "Player ID").
function fieldName(c: Column): string {
  return c.linkTo && c.label.endsWith(' ID') ? c.label.slice(0, -3) : c.label;
}

// focusFirst moves focus to the first field, in form order, that has a
// problem, after the messages are drawn.
function focusFirst(columns: Column[], errs: Record<string, string>) {
  const first = columns.find((c) => errs[c.name]);
  if (first) requestAnimationFrame(() => document.getElementById('field-' + first.name)?.focus());
}
