import { Trans, useTranslation } from 'react-i18next';
import type { Column, Row } from '../api';
import { Modal } from '../components/ConfirmDialog';
import { PathChanges } from '../components/PathChanges';
import { valueWords } from '../fieldWords';
import { jsonPaths, mergePatch, rebaseJSON, sameJSON } from '../jsonDiff';
import { initialValue, isDocumentColumn, toValue, type FormValue } from './formValues';

// A save refused because the row changed since the form opened (409
// conflict, with the row as it is now): what changed under the operator,
// field by field, and their way on. Re-apply lays their changes over the
// row as it is now, with its version, for them to check and save; Discard
// shows the row as it is now without them.

// FieldConflict is one field of the form: as the form opened it (loaded),
// as it is now, and the operator's edit (edited, when mine).
export interface FieldConflict {
  col: Column;
  loaded: unknown;
  now: unknown;
  // theirs: the field changed since the form opened.
  theirs: boolean;
  // mine: the operator changed it (a document: its content, not only its
  // spacing); edited is the value they would save.
  mine: boolean;
  edited?: unknown;
}

// edited is the value an input stands for, or its text while Save would
// refuse it.
function edited(col: Column, v: FormValue): unknown {
  try {
    return toValue(col, v);
  } catch {
    return v;
  }
}

// fieldConflicts compares each field of the form as loaded, as now and as
// the operator left it (initial: the inputs as loaded; values: as now).
export function fieldConflicts(columns: Column[], loaded: Row, now: Row, initial: Record<string, FormValue>, values: Record<string, FormValue>): FieldConflict[] {
  return columns.map((col) => {
    const v = values[col.name] ?? '';
    const changed = v !== (initial[col.name] ?? '');
    const value = changed ? edited(col, v) : undefined;
    const mine = changed && !(isDocumentColumn(col) && mergePatch(loaded[col.name], value) === undefined);
    return { col, loaded: loaded[col.name], now: now[col.name], theirs: !sameJSON(loaded[col.name], now[col.name]), mine, ...(mine && { edited: value }) };
  });
}

// rebaseValues is the form's inputs for the row as it is now with the
// operator's changes laid over it: a field they changed keeps their value
// (a document, their changes place by place over the document now), any
// other field takes its value now.
export function rebaseValues(conflicts: FieldConflict[], values: Record<string, FormValue>): Record<string, FormValue> {
  return Object.fromEntries(conflicts.map((f) => {
    const v = values[f.col.name] ?? '';
    if (!f.mine) return [f.col.name, initialValue(f.col, f.now)];
    if (isDocumentColumn(f.col)) {
      try {
        return [f.col.name, initialValue(f.col, rebaseJSON(f.loaded, toValue(f.col, v), f.now))];
      } catch {
        // Not JSON yet: kept as typed, for the operator to finish.
      }
    }
    return [f.col.name, v];
  }));
}

// overlaps: one path is the other or inside it.
const overlaps = (a: (string | number)[], b: (string | number)[]) => a.slice(0, Math.min(a.length, b.length)).every((k, i) => k === b[i]);

// bothChanged: the operator changed what changed under them (in a
// document, the same place): there, re-applying keeps theirs.
export function bothChanged(f: FieldConflict): boolean {
  if (!f.mine || !f.theirs) return false;
  if (!isDocumentColumn(f.col)) return true;
  const theirs = jsonPaths(f.loaded, f.now);
  return jsonPaths(f.loaded, f.edited).some((m) => theirs.some((t) => overlaps(m.path, t.path)));
}

// Words says a field's value: empty text and no value said so.
function Words({ v, col }: { v: unknown; col?: Column }) {
  const { t } = useTranslation(['form', 'history']);
  if (v === '') return <span className="null">{t('empty')}</span>;
  if (v === null || v === undefined) return <span className="null">{t('none')}</span>;
  return <>{valueWords(v, col)}</>;
}

const names = (fs: FieldConflict[]) => fs.map((f) => f.col.label).join(', ');

// EditConflict is the dialog: each field changed since the form opened,
// as it was, as it is now and as the operator changed it.
export function EditConflict({ conflicts, onReapply, onDiscard, onClose }: {
  conflicts: FieldConflict[];
  onReapply: () => void;
  onDiscard: () => void;
  onClose: () => void;
}) {
  const { t } = useTranslation(['form', 'history']);
  const moved = conflicts.filter((f) => f.theirs);
  const untouched = conflicts.filter((f) => f.mine && !f.theirs);
  return (
    <Modal title={t('This row changed while you were editing')} className="dialog-wide edit-conflict" onClose={onClose}
      description={t('Nothing was saved. After you opened this form, the game or another operator changed this row:')}>
      {moved.length === 0 ? (
        <p>{t('None of the fields on this form changed: the change was to a part of the row the form does not show.')}</p>
      ) : (
        <ul className="conflict-fields" aria-label={t('Changed since you opened the form')}>
          {moved.map((f) => <ConflictField key={f.col.name} f={f} />)}
        </ul>
      )}
      {untouched.length > 0 && <p>{t('Your changes to {{fields}}: nobody else changed them.', { fields: names(untouched), count: untouched.length })}</p>}
      <p className="muted">
        <Trans t={t} ns="form" components={{ strong: <strong /> }}
          i18nKey="<strong>Re-apply my changes</strong> puts your changes on the row as it is now (where you both changed the same thing, yours is kept); check the form, then Save. <strong>Discard my changes</strong> shows the row as it is now." />
      </p>
      <div className="dialog-buttons">
        <button type="button" onClick={onDiscard}>{t('Discard my changes')}</button>
        <button type="button" className="primary" autoFocus onClick={onReapply}>{t('Re-apply my changes')}</button>
      </div>
    </Modal>
  );
}

function ConflictField({ f }: { f: FieldConflict }) {
  const { t } = useTranslation('form');
  return (
    <li className="conflict-field">
      <h3>
        {f.col.label}
        {bothChanged(f) && <span className="badge badge-kept">{t('you changed it too: Re-apply keeps yours')}</span>}
      </h3>
      {isDocumentColumn(f.col) ? (
        <DocumentConflict f={f} />
      ) : (
        <dl className="kv">
          <div><dt>{t('When you opened it')}</dt><dd><Words v={f.loaded} col={f.col} /></dd></div>
          <div><dt>{t('Now')}</dt><dd><Words v={f.now} col={f.col} /></dd></div>
          <div><dt>{t('Your change')}</dt><dd>{f.mine ? <Words v={f.edited} col={f.col} /> : <span className="null">{t('none')}</span>}</dd></div>
        </dl>
      )}
    </li>
  );
}

// DocumentConflict says a JSON column's changes place by place: those
// since the form opened, and the operator's.
function DocumentConflict({ f }: { f: FieldConflict }) {
  const { t } = useTranslation('form');
  const theirs = jsonPaths(f.loaded, f.now);
  const mine = f.mine ? jsonPaths(f.loaded, f.edited) : [];
  return (
    <>
      <p className="conflict-sub">{t('Changed since you opened it:')}</p>
      <PathChanges changes={theirs} />
      <p className="conflict-sub">{t('Your changes:')}{mine.length === 0 && <span className="null"> {t('none')}</span>}</p>
      {mine.length > 0 && <PathChanges changes={mine} note={(c) => (theirs.some((x) => overlaps(x.path, c.path)) ? t('changed since too: Re-apply keeps yours') : '')} />}
    </>
  );
}
