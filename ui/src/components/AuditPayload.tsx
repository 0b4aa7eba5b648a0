import type { ReactElement } from 'react';
import { Link } from 'react-router';
import { Trans, useTranslation } from 'react-i18next';
import { seg, type ResourceMeta, type Row } from '../api';
import { auditSentence, columnChange, columnChanges, erasePartWords, signInAccount, signInFailed, tooLargeWords, useActionLabel } from '../auditWords';
import { stringifyJSON } from '../json';
import { useQuery } from '@tanstack/react-query';
import { rowOf, rowQuery, useResourceMeta, useUsersMeta } from '../queries';
import { formatTime } from '../time';
import { fieldLabel, valueWords } from '../fieldWords';
import { pathWords } from '../jsonDiff';

// The audit entry's payload, shared by the audit log's entry page and a
// row's History tab.

// AuditPayload reads an audit entry's payload as a person would: the
// changed fields as a table of field, before and after, in full, then
// the rest (who asked from where, a reason) as labelled values.
//
// Given its entry, it first says what the entry is about in words: an
// erase's or a data export's report as a sentence with its counts (the
// erase's resources listed below it), a kick as the player and the room,
// each linked; the keys those say are not repeated.
export function AuditPayload({ payload: whole, entry }: { payload: unknown; entry?: Row }) {
  const label = useActionLabel();
  const action = entry?.action;
  const sentence = auditSentence(action, whole);
  const p = (whole !== null && typeof whole === 'object' && !Array.isArray(whole) ? whole : {}) as Record<string, unknown>;
  const signIn = entry && signInFailed(entry) ? signInAccount(p) : undefined;
  const revert = action === 'revert' && entry && (typeof p.auditId === 'number' || typeof p.auditId === 'string') ? String(p.auditId) : undefined;
  const said = sentence ? ['resources', 'auditEntries', 'counts']
    : action === 'room.kick' ? ['userId', 'roomName', 'roomId']
    : signIn ? [signIn.key]
    : revert ? ['auditId', 'of']
    : [];
  // An empty reason (a ban or a kick without one) is no line at all.
  const empty = (k: string, v: unknown) => (k === 'reason' || k === 'note') && (v === '' || v === null);
  const payload = whole !== null && typeof whole === 'object' && !Array.isArray(whole)
    ? Object.fromEntries(Object.entries(whole).filter(([k, v]) => !said.includes(k) && !empty(k, v)))
    : whole;
  const head = sentence ? (
    <div className="audit-sentence">
      <p><strong>{label(action)}</strong>: {sentence}</p>
      {action === 'user.erase' && Array.isArray((whole as { resources?: unknown }).resources) && (
        <ul>{((whole as { resources: Record<string, unknown>[] }).resources).map((r, i) => <li key={i}>{erasePartWords(r)}</li>)}</ul>
      )}
    </div>
  ) : action === 'room.kick' && entry ? <KickSentence entry={entry} label={label(action)} />
    : signIn && entry ? <SignInSentence entry={entry} account={signIn.account} label={label(action)} />
    : revert ? <RevertSentence id={revert} of={typeof p.of === 'string' && p.of ? label(p.of) : ''} label={label(action)} />
    : null;
  const meta = useResourceMeta(typeof entry?.resource === 'string' ? entry.resource : undefined);
  const rest = <PayloadFields payload={payload} meta={meta} />;
  return head ? <div className="stack">{head}{payload !== null && typeof payload === 'object' && Object.keys(payload).length > 0 && rest}</div> : rest;
}

// SignInSentence says a failed sign-in by the account it was for ("Sign-in
// failed for ann@example.com"), linked to the account when one matched:
// the entry's operator is that account, not who tried.
function SignInSentence({ entry, account, label }: { entry: Row; account: string; label: string }) {
  const { t } = useTranslation('audit');
  const users = useUsersMeta();
  const id = typeof entry.target_id === 'string' ? entry.target_id : '';
  const components = {
    action: <strong />,
    account: id && users?.permissions.read ? <Link to={'/users/' + seg(id)} title={id} /> : <span className="mono" />,
  };
  return (
    <p className="audit-sentence">
      <Trans t={t} i18nKey="<action>{{action}}</action> for <account>{{account}}</account>" values={{ action: label, account }} components={components} />
    </p>
  );
}

// RevertSentence says which entry a revert undid: the change, by its
// action and time, linked to its entry ("Reverted the change of 3 Dec,
// 12:51 (Updated)"), not its number.
function RevertSentence({ id, of, label }: { id: string; of: string; label: string }) {
  const { t } = useTranslation('audit');
  const { time, link } = useRevertedEntry(id);
  const values = { action: label, of, time };
  const components = { action: <strong />, entry: link };
  return (
    <p className="audit-sentence">
      {values.time ? (
        of ? <Trans t={t} i18nKey="<action>{{action}}</action> the change of <entry>{{time}}</entry> ({{of}})" values={values} components={components} />
          : <Trans t={t} i18nKey="<action>{{action}}</action> the change of <entry>{{time}}</entry>" values={values} components={components} />
      ) : of ? <Trans t={t} i18nKey="<action>{{action}}</action> <entry>an earlier change</entry> ({{of}})" values={values} components={components} />
        : <Trans t={t} i18nKey="<action>{{action}}</action> <entry>an earlier change</entry>" values={values} components={components} />}
    </p>
  );
}

// useRevertedEntry is the entry a revert undid (id), as its sentence
// says it: its time ('' until read, or when the operator may not read
// the audit log), and a link to it, its number on hover. known are
// entries read already (a row's history), looked in first.
export function useRevertedEntry(id: string, known?: Row[]): { time: string; link: ReactElement } {
  const audit = useResourceMeta('adminAudit');
  const had = known?.find((e) => String(e.id) === id);
  const q = useQuery({ ...rowQuery(audit?.name ?? 'adminAudit', id), select: rowOf, enabled: !had && !!audit?.permissions.read, retry: false, staleTime: 60_000 });
  const at = (had ?? q.data)?.created_at;
  return {
    time: typeof at === 'string' || typeof at === 'number' ? formatTime(at) : '',
    link: audit?.permissions.read ? <Link to={'/adminAudit/' + seg(id)} title={'#' + id} /> : <span />,
  };
}

// KickSentence says a kick: "Kicked Player 07 from arena", the player
// linked to their page, the room to its own.
function KickSentence({ entry, label }: { entry: Row; label: string }) {
  const { t } = useTranslation('audit');
  const p = (entry.payload ?? {}) as Record<string, unknown>;
  const labels = (entry._labels ?? {}) as Record<string, string>;
  const room = String(p.roomId ?? entry.target_id ?? '');
  const player = typeof p.userId === 'string' ? p.userId : '';
  const values = { action: label, player: labels.player ?? player, room: typeof p.roomName === 'string' && p.roomName ? p.roomName : room };
  const components = {
    action: <strong />,
    player: <Link to={'/users/' + seg(player)} title={player} />,
    room: <Link to={'/rooms/' + seg(room)} title={room} />,
  };
  return (
    <p className="audit-sentence">
      {player && room ? (
        <Trans t={t} i18nKey="<action>{{action}}</action> <player>{{player}}</player> from <room>{{room}}</room>" values={values} components={components} />
      ) : player ? (
        <Trans t={t} i18nKey="<action>{{action}}</action> <player>{{player}}</player>" values={values} components={components} />
      ) : room ? (
        <Trans t={t} i18nKey="<action>{{action}}</action> a player from <room>{{room}}</room>" values={values} components={components} />
      ) : (
        <Trans t={t} i18nKey="<action>{{action}}</action> a player" values={values} components={components} />
      )}
    </p>
  );
}

// tooLarge says, in words, the part of a payload that says what the entry
// left out: changes an older entry cut whole ("[truncated: N bytes]"),
// or _truncated, the size left out in all.
function tooLarge(key: string, v: unknown): string | undefined {
  if (key === 'changes' && typeof v === 'string') return tooLargeWords(v);
  if (key === '_truncated' && v !== null && typeof v === 'object') return tooLargeWords(Number((v as { bytes?: unknown }).bytes));
  return undefined;
}

function PayloadFields({ payload, meta }: { payload: unknown; meta: ResourceMeta | undefined }) {
  const { t } = useTranslation('audit');
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return <pre className="json-block">{stringifyJSON(payload, 2)}</pre>;
  // The panel's updates keep their diff under "changes"; Audit.RecordUpdate
  // writes it at the top level.
  const { changes: nested, ...top } = payload as Record<string, unknown>;
  const fromNested = columnChanges(nested);
  const entries = Object.entries(fromNested ? top : (payload as Record<string, unknown>));
  const changes = [...(fromNested ?? []), ...entries.flatMap(([k, v]) => {
    const c = columnChange(v);
    return c ? [[k, c] as const] : [];
  })];
  const rest = entries.filter(([, v]) => !columnChange(v));
  // Fields by their labels, values in words: a decimal with its column's
  // scale, an instant as formatTime says it; JSON only for a structure.
  const show = (v: unknown, key?: string) => {
    const col = key !== undefined ? meta?.columns.find((c) => c.name === key) : undefined;
    if (v === undefined) return <span className="null">—</span>;
    if (v === null) return <span className="null">{t('none')}</span>;
    if (v !== null && typeof v === 'object' && !(Array.isArray(v) && v.every((x) => typeof x !== 'object' || x === null))) return <code className="diff-json">{stringifyJSON(v, 2)}</code>;
    return valueWords(v, col);
  };
  return (
    <div className="stack">
      {changes.length > 0 && (
        <div className="table-wrap">
          <table className="data-table diff-table" aria-label={t('Changes')}>
            <thead><tr><th>{t('Field')}</th><th>{t('Before')}</th><th>{t('After')}</th></tr></thead>
            <tbody>
              {changes.flatMap(([k, c]) =>
                c.kind === 'value' ? (
                  <tr key={k}><td title={k}>{fieldLabel(meta, k)}</td><td>{show(c.before, k)}</td><td>{show(c.after, k)}</td></tr>
                ) : c.kind === 'truncated' ? (
                  <tr key={k}><td title={k}>{fieldLabel(meta, k)}</td><td colSpan={2}>{tooLargeWords(c.bytes)}</td></tr>
                ) : (
                  // A document's changes, one place a row; the values as
                  // the server sent them (a masked column's masked).
                  c.paths.map((p, i) => (
                    <tr key={k + '/' + i}>
                      <td title={k}>{fieldLabel(meta, k)} <code className="path">{pathWords(p.path)}</code></td>
                      <td>{'before' in p ? show(p.before) : <span className="null">{t('(added)')}</span>}</td>
                      <td>{'after' in p ? show(p.after) : <span className="null">{t('(removed)')}</span>}</td>
                    </tr>
                  ))
                ))}
            </tbody>
          </table>
        </div>
      )}
      {rest.length > 0 && (
        <dl className="kv">
          {rest.map(([k, v]) => (
            // What an entry could not record is said in words.
            <div key={k}><dt title={k}>{fieldLabel(undefined, k)}</dt><dd>{tooLarge(k, v) ?? (k === 'row' && v !== null && typeof v === 'object' && !Array.isArray(v) ? (
              // A created or deleted row: its fields by their labels.
              <dl className="kv">{Object.entries(v).map(([c, x]) => <div key={c}><dt title={c}>{fieldLabel(meta, c)}</dt><dd>{show(x, c)}</dd></div>)}</dl>
            ) : show(v))}</dd></div>
          ))}
        </dl>
      )}
    </div>
  );
}
