import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import i18n from '../i18n';
import type { Column, Row } from '../api';
import { seg } from '../api';
import { useCatalog } from '../queries';
import { formatDecimal, isTimeColumn } from '../pages/formValues';

// The operator's time zone, in which instants are shown and date filters
// read.
export const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

// wallClockNote says what a timestamp-local column is, beside its header,
// label and cells.
export const wallClockNote = () => i18n.t('no time zone: the wall clock as stored, not converted', { ns: 'list' });

// ZoneNote marks a timestamp-local column's header or label.
export function ZoneNote({ col }: { col: Pick<Column, 'kind'> }) {
  const { t } = useTranslation('list');
  if (col.kind !== 'timestamp-local') return null;
  return <span className="col-note" title={wallClockNote()}> {t('(no time zone)')}</span>;
}
import { stringifyJSON } from '../json';
import { actionLabel, auditSentence, erasePartWords, signInAccount, signInFailed } from '../auditWords';
import { formatTime, utcTime } from '../time';
import { compositeKeyWords, payloadSummary, resourceLabel } from '../fieldWords';
import { userLabel } from '../pages/userAccess';

type ErasePart = Parameters<typeof erasePartWords>[0];

// The texts of this module are said outside components: their catalog
// loads with it, and again with each language chosen later.
void i18n.loadNamespaces('list');

// namedFields are the payload fields by which an audit entry names a
// person by id (the server's history.PeopleFields) or a report's category
// by its key: the server says each in the entry's _labels under the
// field's name (a kick's player under "player").
const namedFields = ['playerId', 'reporterId', 'takenFrom', 'category'];

// namedPayload is an audit entry's payload as a person reads it: the
// people it names by id by their names, a report's category by its
// label, a deleted row's foreign keys by the rows' labels, where the
// server named them in the entry's _labels (never for what the
// operator's role may not read). Other payloads as they are.
export function namedPayload(entry: Row): unknown {
  const p = entry.payload;
  const labels = entry._labels as Record<string, string> | undefined;
  if (!labels || p === null || typeof p !== 'object' || Array.isArray(p)) return p;
  const named = { ...(p as Record<string, unknown>) };
  for (const k of namedFields) if (labels[k] && k in named) named[k] = labels[k];
  // A deleted row's links, by the rows' labels (_labels["row.<column>"]).
  const was = named.row;
  if (was !== null && typeof was === 'object' && !Array.isArray(was)) {
    named.row = Object.fromEntries(Object.entries(was).map(([c, x]) => [c, labels['row.' + c] ?? x]));
  }
  return named;
}

// erasedWords says an erase's report in the audit list's cell: its
// sentence, then the first resources ("Chat log: 3 rows deleted") and
// how many more, never its JSON.
function erasedWords(payload: unknown): string | undefined {
  const sentence = auditSentence('user.erase', payload);
  if (!sentence) return undefined;
  const parts = (payload as { resources?: unknown }).resources;
  const each = Array.isArray(parts) ? parts.filter((r) => Number((r as ErasePart)?.rows ?? 0) > 0).map((r) => erasePartWords(r as ErasePart)) : [];
  const head = [sentence, ...each.slice(0, 2)].join(' · ');
  return each.length > 2 ? i18n.t('{{head}} · +{{count}} more', { ns: 'history', head, count: each.length - 2 }) : head;
}

// formatDateTime is formatTime (../time): the one way an instant is said.
export function formatDateTime(v: unknown): string {
  return formatTime(v);
}

export function compactJSON(v: unknown, max = 80): string {
  const s = stringifyJSON(v) ?? '';
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

// shortDate is formatTime (../time), kept for its callers.
export function shortDate(v: string): string {
  return formatTime(v);
}

// jsonSummary says a JSON value in a few words for a list cell: a scalar
// as it is, "3 items: a, b, …" for an array, "lvl 5 · tag vip · +1 more"
// for an object. The cell's title has the whole value.
export function jsonSummary(v: unknown): string {
  const scalar = (x: unknown) => (x === null ? 'null' : typeof x === 'object' ? (Array.isArray(x) ? `[${x.length}]` : '{…}') : String(x));
  const clip = (x: string, n = 24) => (x.length > n ? x.slice(0, n - 1) + '…' : x);
  if (Array.isArray(v)) {
    if (v.length === 0) return i18n.t('no items', { ns: 'list' });
    const head = v.slice(0, 3).map((x) => clip(scalar(x), 16)).join(', ') + (v.length > 3 ? ', …' : '');
    return i18n.t('{{count, number}} items: {{head}}', { ns: 'list', count: v.length, head });
  }
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v);
    if (entries.length === 0) return i18n.t('empty', { ns: 'list' });
    const head = entries.slice(0, 2).map(([k, x]) => `${clip(k, 16)} ${clip(scalar(x), 16)}`).join(' · ');
    return entries.length > 2 ? i18n.t('{{head}} · +{{count, number}} more', { ns: 'list', head, count: entries.length - 2 }) : head;
  }
  return clip(scalar(v), 60);
}

// BanInfo is the JSON of the users table's ban (admin.BanInfo).
export interface BanInfo {
  reason?: string;
  until?: string | null;
  bannedAt?: string;
  bannedBy?: string;
}

// banWords are a ban's state and end in words: "Banned" or "Ban ended",
// and " until 2 Dec, 14:00", " on …" or " for good". English only: it is
// for the users page's ban (UserModeration) until that says the ban in
// the operator's language itself; banText is the translated whole.
export function banWords(ban: BanInfo): { state: string; when: string } {
  const ended = banEnded(ban);
  return {
    state: ended ? 'Ban ended' : 'Banned',
    when: ban.until ? ` ${ended ? 'on' : 'until'} ${shortDate(ban.until)}` : ' for good',
  };
}

// banEnded: the ban's end is past.
function banEnded(ban: BanInfo): boolean {
  return !!ban.until && new Date(ban.until).getTime() <= Date.now();
}

// banText is a ban's state and end in a sentence of the operator's
// language: "Banned until 2 Dec, 14:00", "Ban ended on …" or "Banned for
// good".
export function banText(ban: BanInfo): string {
  if (!ban.until) return i18n.t('Banned for good', { ns: 'list' });
  const date = shortDate(ban.until);
  return banEnded(ban) ? i18n.t('Ban ended on {{date}}', { ns: 'list', date }) : i18n.t('Banned until {{date}}', { ns: 'list', date });
}

// isBan tells the users table's ban (what POST /users/{id}/ban stores)
// from any other JSON value.
function isBan(v: unknown): v is BanInfo {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as BanInfo).bannedAt === 'string';
}

// BanBadge is a ban in words for a list: "Banned until 2 Dec, 14:00 ·
// Win-trading…"; the whole reason on hover and on keyboard focus.
export function BanBadge({ ban }: { ban: BanInfo }) {
  useTranslation('list'); // said again when the language changes
  const text = banText(ban) + (ban.reason ? ' · ' + ban.reason : '');
  return (
    <span className={'badge ' + (banEnded(ban) ? '' : 'badge-banned')} title={text} tabIndex={0}>
      {text}
    </span>
  );
}

// BanCell is the users' ban column (the catalog's banColumn) in a list:
// "—" when not banned, else its badge. It reads the JSON ban column and
// the server's _ban alike (the latter has no bannedAt, and {} is a ban
// for good without a reason).
export function BanCell({ ban }: { ban: unknown }) {
  if (ban === null || ban === undefined || typeof ban !== 'object' || Array.isArray(ban)) return <span className="null">—</span>;
  return <BanBadge ban={ban as BanInfo} />;
}

// CellValue shows one column of a row compactly: links for foreign keys,
// labelled from the row's _labels, localized datetimes, one-line JSON.
// noLink shows a foreign key's label without its link (the cell is inside
// another link). Everything is text, never HTML.
export function CellValue({ col, row, noLink = false }: { col: Column; row: Row; noLink?: boolean }) {
  const { t } = useTranslation('list');
  const invalid = row._invalid?.[col.name];
  if (invalid) {
    return (
      <span className="cell-invalid" title={invalid}>
        <CellText col={col} row={row} noLink={noLink} /> <span className="muted">{t('(not as stored: {{reason}})', { reason: invalid })}</span>
      </span>
    );
  }
  return <CellText col={col} row={row} noLink={noLink} />;
}

// byteSize is the size of base64 data in bytes.
function byteSize(b64: string): number {
  const pad = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return Math.floor((b64.length * 3) / 4) - pad;
}

function CellText({ col, row, noLink }: { col: Column; row: Row; noLink: boolean }) {
  // The audit log's cells say actions, payloads and erased players in
  // words of other namespaces: loaded before the cell shows, and said
  // again when the language changes.
  const { t } = useTranslation(['list', 'audit', 'history', 'moderation']);
  const catalog = useCatalog();
  const v = row[col.name];
  // A failed sign-in's operator_id is the account tried, kept so for its
  // erasure: who tried is not known, and the account is what the entry
  // is about (its target, or as typed where it matched none).
  const audit = catalog.data?.find((r) => r.name === 'adminAudit');
  if (signInFailed(row) && audit?.columns.includes(col)) {
    if (col.name === 'operator_id') return <span className="muted" title={t('Whoever tried is not known: the account tried is the target.', { ns: 'audit' })}>{t('unknown (someone signing in)', { ns: 'audit' })}</span>;
    const account = signInAccount(row.payload)?.account;
    if (col.name === 'target_id' && (v === null || v === undefined) && account) return <span className="mono">{account}</span>;
  }
  if (v === null || v === undefined) return <span className="null">—</span>;
  if (col.linkTo) {
    let target = col.linkTo.resource ?? (col.linkTo.resourceFromColumn ? String(row[col.linkTo.resourceFromColumn] ?? '') : '');
    const users = catalog.data?.find((r) => r.users);
    if (target === 'auth' && users) target = users.name; // a sign-in entry names the operator's account
    if (target === 'rooms' && !noLink) {
      // A live room's entry: its page, named as the entry names it.
      const name = (row.payload as { roomName?: unknown } | null)?.roomName;
      return <Link to={`/rooms/${seg(String(v))}`} title={String(v)}>{typeof name === 'string' && name ? name : String(v)}</Link>;
    }
    // A composite key's id is base64 of its values: said as the values.
    const named = row._labels?.[col.name] || (col.linkTo.resourceFromColumn ? compositeKeyWords(String(v)) : undefined) || String(v);
    const text = users && target === users.name ? userLabel(users, named) : named;
    if (noLink) return text === String(v) ? <>{text}</> : <span title={String(v)}>{text}</span>;
    if (v !== '' && target !== '' && catalog.data?.some((r) => r.name === target && r.permissions.read)) {
      return (
        // The audit log's target (a resource named by another column) opens on the row's history.
        <Link to={`/${seg(target)}/${seg(String(v))}${col.linkTo.resourceFromColumn ? '?tab=_history' : ''}`} title={text === String(v) ? undefined : String(v)}>
          {text}
        </Link>
      );
    }
    return text === String(v) ? <>{text}</> : <span title={String(v)}>{text}</span>;
  }
  // Kinds first: a time column may be any data type (a unix-seconds
  // integer the server answers as ISO 8601), and a wall clock or a day is
  // shown as stored, never converted.
  if (col.kind === 'timestamp-local') return <span title={wallClockNote()}>{String(v)}</span>;
  if (col.kind === 'date') return <span>{String(v).slice(0, 10)}</span>;
  if (isTimeColumn(col)) return <time dateTime={String(v)} title={t('{{time}} (shown in {{zone}})', { time: utcTime(v) || String(v), zone: timeZone })}>{formatTime(v)}</time>;
  if (col.kind === 'decimal') return <span>{formatDecimal(v, col.scale)}</span>;
  // The audit log's action, in words (the server's labels); a kick says
  // whom.
  if (col.name === 'resource' && audit?.columns.includes(col)) return <span title={String(v)}>{resourceLabel(catalog.data, v)}</span>;
  if (col.name === 'payload' && audit?.columns.includes(col)) {
    const target = catalog.data?.find((r) => r.name === row.resource);
    const said = (row.action === 'user.erase' ? erasedWords(v) : row.action === 'user.export' ? auditSentence(row.action, v) : undefined) ?? payloadSummary(namedPayload(row), target, catalog.data);
    return <span className="payload-cell" title={stringifyJSON(v, 1)}>{said}</span>;
  }
  if (col.name === 'action' && audit?.columns.includes(col)) {
    const player = row.action === 'room.kick' ? (row._labels as Record<string, string> | undefined)?.player : undefined;
    return <span title={String(v)}>{actionLabel(audit.auditActions, v)}{player && <span className="muted"> {player}</span>}</span>;
  }
  switch (col.dataType) {
    case 'json':
      if (isBan(v)) return <BanBadge ban={v} />;
      return <code className="json-cell" title={stringifyJSON(v, 1)}>{jsonSummary(v)}</code>;
    case 'boolean':
      return <>{v ? t('yes') : t('no')}</>;
    case 'bytes':
      return <span className="muted">{t('(binary, {{count, number}} bytes)', { count: typeof v === 'string' ? byteSize(v) : 0 })}</span>;
    default: {
      const s = String(v);
      return <span title={s.length > 80 ? s : undefined}>{s.length > 80 ? s.slice(0, 79) + '…' : s}</span>;
    }
  }
}

// downloadBytes saves base64 data (standard or URL alphabet) as a file.
function downloadBytes(b64: string, name: string) {
  const bin = atob(b64.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// FieldValue is CellValue for the detail page: JSON in full, pretty;
// binary data as its size and a download.
export function FieldValue({ col, row, fileName }: { col: Column; row: Row; fileName?: string }) {
  const { t } = useTranslation('list');
  const catalog = useCatalog();
  const v = row[col.name];
  // The audit log's action is said in words, as its list says it.
  if ((col.name === 'action' || col.name === 'resource') && catalog.data?.find((r) => r.name === 'adminAudit')?.columns.includes(col)) return <CellValue col={col} row={row} />;
  if (col.dataType === 'bytes' && typeof v === 'string') {
    const name = fileName ?? col.name + '.bin';
    return (
      <span className="inline-field">
        {t('{{count, number}} bytes', { count: byteSize(v) })}
        <button type="button" onClick={() => downloadBytes(v, name)} aria-label={t('Download {{label}} ({{file}})', { label: col.label, file: name })}>
          {t('Download')}
        </button>
      </span>
    );
  }
  if (col.kind === 'decimal' && v !== null && v !== undefined) return <span className="pre-wrap">{formatDecimal(v, col.scale)}</span>;
  if (col.dataType === 'json' && v !== null && v !== undefined) {
    return <pre className="json-block">{stringifyJSON(v, 2)}</pre>;
  }
  if ((col.dataType === 'string' || col.dataType === 'integer' || col.dataType === 'number') && !col.linkTo && v != null && col.kind !== 'timestamp-local' && col.kind !== 'date' && !isTimeColumn(col)) {
    return <span className="pre-wrap">{String(v)}</span>;
  }
  return <CellValue col={col} row={row} />;
}
