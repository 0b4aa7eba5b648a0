import { useTranslation } from 'react-i18next';
import i18n from './i18n';
import type { ResourceMeta, Row } from './api';
import { useCatalog, useResourceMeta } from './queries';
import type { PathChange } from './jsonDiff';
import { compositeKeyWords, resourceLabel } from './fieldWords';
import { singular } from './names';
import { userLabel } from './pages/userAccess';
import { formatTime } from './time';

// The audit log in words: each action's label in the operator's language
// and a sentence for the entries whose payload is a report (an erase, a
// data export). The server's list (package audit's one list, served as
// the adminAudit catalog entry's auditActions and said by the CSV export)
// is the English; the panel says each of its actions from the audit
// catalog, and one it has no words for (an action newer than the panel)
// as the server labels it.

// actionWords are the actions of package audit's list, in its order, in
// the operator's language. The English must stay the server's labels.
function actionWords(): Map<string, string> {
  const t = i18n.getFixedT(null, 'audit');
  return new Map([
    // A row of a resource.
    ['create', t('Created')],
    ['update', t('Updated')],
    ['delete', t('Deleted')],
    ['restore', t('Restored')],
    ['revert', t('Reverted')],
    ['custom', t('Action run')],
    ['export', t('CSV exported')],
    // A user, as moderation and the data requests see them.
    ['user.ban', t('Banned')],
    ['user.unban', t('Unbanned')],
    ['user.revoke_sessions', t('Sessions revoked')],
    ['user.sessions_closed', t('Live connections closed')],
    ['user.invite', t('Invited')],
    ['user.totp_reset', t('Two-factor reset')],
    ['user.export', t('Data exported')],
    ['user.erase', t('Erased')],
    // Players' reports.
    ['report.file', t('Report filed')],
    ['report.claim', t('Reports claimed')],
    ['report.release', t('Claim released')],
    ['report.resolve', t('Reports resolved')],
    // Operators' roles.
    ['role.set', t('Role changed')],
    ['role.assign_mod', t('Made mod')],
    ['role.unassign_mod', t('Mod removed')],
    ['role.set_row_scope', t('Row scope changed')],
    // Live rooms.
    ['room.kick', t('Kicked')],
    ['room.lock', t('Room locked')],
    ['room.unlock', t('Room unlocked')],
    ['room.state.edit', t('Room state edited')],
    ['room.state.delete', t('Room state deleted')],
    ['room.dispose', t('Room closed')],
    // Signing in and the account.
    ['auth.login', t('Signed in')],
    ['auth.login_failed', t('Sign-in failed')],
    ['auth.logout', t('Signed out')],
    ['auth.bootstrap', t('First admin created')],
    ['auth.rate_limited', t('Rate limited')],
    ['auth.totp_challenge', t('Code asked for')],
    ['auth.totp_failed', t('Wrong code')],
    ['auth.recovery_used', t('Recovery code used')],
    ['auth.totp_enabled', t('Two-factor turned on')],
    ['auth.totp_disabled', t('Two-factor turned off')],
    ['auth.recovery_codes_regenerated', t('Recovery codes renewed')],
    ['auth.password_changed', t('Password changed')],
    ['auth.password_reset_requested', t('Password reset asked for')],
    ['auth.password_reset_completed', t('Password reset')],
    ['auth.reset_delivery_limited', t('Reset email held back')],
  ]);
}

// The words are said once per language, and again once its catalog has
// loaded (until then they are the English).
let said: { lng: string; loaded: boolean; words: Map<string, string> } | undefined;

function words(): Map<string, string> {
  const lng = i18n.language;
  const loaded = i18n.hasResourceBundle(lng, 'audit');
  if (said?.lng !== lng || said.loaded !== loaded) said = { lng, loaded, words: actionWords() };
  return said.words;
}

// useActionLabel is a function saying an action in the operator's
// language; a game's own action (Audit().Record), or one an operator who
// may not read the audit log meets, is shown as recorded. A component
// that calls it follows the language.
export function useActionLabel(): (action: unknown) => string {
  const labels = useResourceMeta('adminAudit')?.auditActions;
  useTranslation('audit');
  return (action) => actionLabel(labels, action);
}

// actionLabel says action in the operator's language when labels (the
// server's) has it, else as recorded. A component calling it directly
// should useTranslation('audit') to load the words and follow the
// language.
export function actionLabel(labels: Record<string, string> | undefined, action: unknown): string {
  const a = String(action ?? '');
  if (!labels || !Object.hasOwn(labels, a)) return a;
  return words().get(a) ?? labels[a] ?? a;
}

// actionLabels are the server's actions (labels) in the operator's
// language, in the server's order, for a picker of actions.
export function actionLabels(labels: Record<string, string> | undefined): { action: string; label: string }[] {
  return Object.keys(labels ?? {}).map((action) => ({ action, label: actionLabel(labels, action) }));
}

// signInAccount is the account a sign-in entry was for, as typed: the
// payload's email or username, and its key.
export function signInAccount(payload: unknown): { key: string; account: string } | undefined {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return undefined;
  for (const key of ['email', 'username']) {
    const v = (payload as Record<string, unknown>)[key];
    if (typeof v === 'string' && v !== '') return { key, account: v };
  }
  return undefined;
}

// signInFailed: entry is a failed sign-in. Its operator_id is the account
// that was tried (so an erasure of that account finds it), not whoever
// tried, who is not known: the panel says its operator as unknown and
// the account as what the entry is about.
export function signInFailed(entry: Row): boolean {
  return entry.action === 'auth.login_failed';
}

// entryTarget names what an entry acted on, as far as the entry and the
// server's _labels say: the row by its label (a row known by its key
// alone as "Match 12", a composite key by its values), a kick's player, a
// live room by its name, a resource by its label when the entry names no
// row; '' when it names nothing.
function entryTarget(entry: Row, catalog: ResourceMeta[] | undefined): string {
  const labels = (entry._labels ?? {}) as Record<string, string>;
  const p = (entry.payload !== null && typeof entry.payload === 'object' && !Array.isArray(entry.payload) ? entry.payload : {}) as Record<string, unknown>;
  const id = entry.target_id === null || entry.target_id === undefined ? '' : String(entry.target_id);
  const key = String(entry.resource ?? '');
  const room = typeof p.roomName === 'string' && p.roomName ? p.roomName : id;
  if (entry.action === 'room.kick') return labels.player || (typeof p.userId === 'string' ? p.userId : '') || room;
  if (key === 'rooms') return room;
  const users = catalog?.find((r) => r.users);
  const person = key === 'auth' || key === 'roles';
  const meta = person ? users : catalog?.find((r) => r.name === key);
  if (id === '') return key === '' || person ? '' : resourceLabel(catalog, key);
  const named = labels.target_id;
  if (named) return meta?.users ? userLabel(meta, named) : named;
  if (meta && meta.primaryKey.length > 1) return compositeKeyWords(id) ?? id;
  return meta && !meta.users ? `${singular(meta.label)} ${id}` : id;
}

// auditEntryWhat says what an audit entry records, in words: its action
// and what it acted on ("Banned: Player 07", "CSV exported: Matches"), a
// failed sign-in by the account tried ("Sign-in failed for
// ann@example.com"), or the action alone.
export function auditEntryWhat(entry: Row, actions: Record<string, string> | undefined, catalog: ResourceMeta[] | undefined): string {
  const t = i18n.getFixedT(null, 'audit');
  const action = actionLabel(actions, entry.action);
  if (signInFailed(entry)) {
    const account = signInAccount(entry.payload)?.account ?? entryTarget(entry, catalog);
    return account ? t('{{action}} for {{account}}', { action, account }) : action;
  }
  const target = entryTarget(entry, catalog);
  return target ? t('{{action}}: {{target}}', { action, target }) : action;
}

// useAuditEntryName is a function naming an audit entry for a heading or
// a card: what it records and when, in the operator's language and time
// ("Banned: Player 07 · 3 Dec 2026, 12:51"); its number is no name.
export function useAuditEntryName(): (entry: Row) => string {
  const actions = useResourceMeta('adminAudit')?.auditActions;
  const catalog = useCatalog().data;
  const { t } = useTranslation('audit');
  return (entry) => t('{{what}} · {{when}}', { what: auditEntryWhat(entry, actions, catalog), when: formatTime(entry.created_at) });
}

// The audit chart sums the actions past its busiest five as "other".
export const otherLine = 'other';

type ErasePart = { relation?: string; label?: string; rule?: string; rows?: number };

// rowsDone says what an erase rule did to n rows: "3 rows deleted".
function rowsDone(rule: string, n: number): string {
  const t = i18n.getFixedT(null, 'audit');
  switch (rule) {
    case 'delete':
      return t('{{count, number}} rows deleted', { count: n });
    case 'unlink':
      return t('{{count, number}} rows unlinked', { count: n });
    case 'anonymize':
      return t('{{count, number}} rows anonymized', { count: n });
    case 'keep':
      return t('{{count, number}} rows kept', { count: n });
    default:
      return t('{{count, number}} rows {{rule}}', { count: n, rule });
  }
}

// done says what an erase rule did to n more rows, after rowsDone has
// said the noun: "2 unlinked".
function done(rule: string, n: number): string {
  const t = i18n.getFixedT(null, 'audit');
  switch (rule) {
    case 'delete':
      return t('{{count, number}} deleted', { count: n });
    case 'unlink':
      return t('{{count, number}} unlinked', { count: n });
    case 'anonymize':
      return t('{{count, number}} anonymized', { count: n });
    case 'keep':
      return t('{{count, number}} kept', { count: n });
    default:
      return t('{{count, number}} {{rule}}', { count: n, rule });
  }
}

// auditSentence says an erase's or a data export's report as a sentence
// with its counts ("3 rows deleted, 2 unlinked, 14 audit entries
// redacted"; "5 resources, 120 rows"), without the action's label; none
// for other entries.
export function auditSentence(action: unknown, payload: unknown): string | undefined {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return undefined;
  const t = i18n.getFixedT(null, 'audit');
  const p = payload as Record<string, unknown>;
  if (action === 'user.erase') {
    const byRule = new Map<string, number>();
    for (const part of Array.isArray(p.resources) ? (p.resources as ErasePart[]) : []) {
      const rule = String(part.rule ?? 'keep');
      byRule.set(rule, (byRule.get(rule) ?? 0) + Number(part.rows ?? 0));
    }
    const said = [...byRule].filter(([, n]) => n > 0).map(([rule, n], i) => (i === 0 ? rowsDone(rule, n) : done(rule, n)));
    if (said.length === 0) said.push(t('no rows of theirs'));
    said.push(t('{{count, number}} audit entries redacted', { count: Number(p.auditEntries ?? 0) }));
    return said.join(', ');
  }
  if (action === 'user.export' && p.counts && typeof p.counts === 'object') {
    const counts = Object.entries(p.counts as Record<string, unknown>);
    const rows = counts.filter(([k]) => k !== 'audit' && k !== 'reports');
    const total = rows.reduce((n, [, v]) => n + Number(v ?? 0), 0);
    const audit = counts.find(([k]) => k === 'audit');
    const reports = counts.find(([k]) => k === 'reports');
    return [
      t('{{count, number}} resources', { count: rows.length }),
      t('{{count, number}} rows', { count: total }),
      ...(reports ? [t('{{count, number}} reports', { count: Number(reports[1] ?? 0) })] : []),
      ...(audit ? [t('{{count, number}} audit entries', { count: Number(audit[1] ?? 0) })] : []),
    ].join(', ');
  }
  return undefined;
}

// erasePartWords is one resource of an erase's report: "Chat log: 3 rows
// deleted".
export function erasePartWords(part: ErasePart): string {
  const t = i18n.getFixedT(null, 'audit');
  return t('{{resource}}: {{done}}', { resource: part.label ?? part.relation ?? '', done: rowsDone(String(part.rule ?? ''), Number(part.rows ?? 0)) });
}

// ColumnChange is one column's change in an update's audit entry
// (docs/api.md, "History"): its value before and after (either absent
// where there was none); a JSON document's leaf changes, place by place;
// or, where the entry could not keep it, only how large it was.
export type ColumnChange =
  | { kind: 'value'; before?: unknown; after?: unknown }
  | { kind: 'paths'; paths: PathChange[] }
  | { kind: 'truncated'; bytes: number };

const isPathChange = (v: unknown): v is PathChange =>
  v !== null && typeof v === 'object' && Array.isArray((v as { path?: unknown }).path);

// columnChange reads v as one column's change, or undefined when it is none.
export function columnChange(v: unknown): ColumnChange | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1 && Array.isArray(o.paths)) return { kind: 'paths', paths: o.paths.filter(isPathChange) };
  if (o.truncated === true && keys.every((k) => k === 'truncated' || k === 'bytes')) return { kind: 'truncated', bytes: Number(o.bytes ?? 0) };
  if (keys.length > 0 && keys.every((k) => k === 'before' || k === 'after')) return { kind: 'value', ...o };
  return undefined;
}

// columnChanges reads an entry's changes ({column: change}), or undefined
// when they are not that (a game's own payload, or changes an older entry
// cut whole: "[truncated: N bytes]").
export function columnChanges(v: unknown): [string, ColumnChange][] | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const out: [string, ColumnChange][] = [];
  for (const [k, c] of Object.entries(v)) {
    const change = columnChange(c);
    if (!change) return undefined;
    out.push([k, change]);
  }
  return out;
}

// tooLargeWords says a change the entry could not record: "too large to
// record (412,000 bytes)". changes cut whole by an older entry are the
// text "[truncated: N bytes]".
export function tooLargeWords(bytes: number | string): string {
  const m = typeof bytes === 'string' ? /^\[truncated: (\d+) bytes\]$/.exec(bytes) : null;
  const n = typeof bytes === 'number' ? bytes : m ? Number(m[1]) : NaN;
  const t = i18n.getFixedT(null, 'audit');
  return Number.isFinite(n) ? t('too large to record ({{count, number}} bytes)', { count: n }) : t('too large to record');
}
