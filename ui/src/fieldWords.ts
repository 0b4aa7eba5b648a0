import i18n from './i18n';
import type { Column, ResourceMeta } from './api';
import { stringifyJSON } from './json';
import { formatDecimal, isTimeColumn } from './pages/formValues';
import { formatTime } from './time';
import { actionLabel, columnChanges, tooLargeWords } from './auditWords';
import { pathWords, type PathChange } from './jsonDiff';

// Keys as a person reads them: a column by its catalog label, an audit
// payload's own keys in words, a resource by its label. The words are the
// history namespace's, said at the moment they are needed (the language
// can change); pages that show them (the list's audit cells, an entry's
// payload) may render before any of this part of the panel has loaded,
// so its catalog is asked for now.
void i18n.loadNamespaces('history');

// humanize turns a key into words: "sessionsClosed" and "sessions_closed"
// are "Sessions closed".
export function humanize(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .trim()
    .toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : key;
}

// payloadWord names a key the panel itself writes into audit payloads,
// or undefined for another.
function payloadWord(key: string): string | undefined {
  switch (key) {
    case 'sessionsClosed': return i18n.t('Live sessions closed', { ns: 'history' });
    case 'until': return i18n.t('Until', { ns: 'history' });
    case 'reason': return i18n.t('Reason', { ns: 'history' });
    case 'ip': return i18n.t('From address', { ns: 'history' });
    case 'userAgent': return i18n.t('Browser', { ns: 'history' });
    case 'email': return i18n.t('Email', { ns: 'history' });
    case 'scope': return i18n.t('Scope', { ns: 'history' });
    case 'scopes': return i18n.t('Scopes', { ns: 'history' });
    case 'roomName': return i18n.t('Room', { ns: 'history' });
    case 'roomId': return i18n.t('Room id', { ns: 'history' });
    case 'userId': return i18n.t('Player', { ns: 'history' });
    case 'of': return i18n.t('Change reverted', { ns: 'history' });
    case '_truncated': return i18n.t('Left out', { ns: 'history' });
    case 'force': return i18n.t('Forced', { ns: 'history' });
  }
  return undefined;
}

// resourceWord names an audit log's resource that has no catalog entry
// of its own, or undefined for another.
function resourceWord(key: string): string | undefined {
  switch (key) {
    case 'auth': return i18n.t('Sign-in', { ns: 'history' });
    case 'rooms': return i18n.t('Live rooms', { ns: 'history' });
    case 'users': return i18n.t('Users', { ns: 'history' });
  }
  return undefined;
}

// resourceLabel is a resource's label from the catalog, else in words.
export function resourceLabel(catalog: ResourceMeta[] | undefined, key: unknown): string {
  const k = String(key ?? '');
  return catalog?.find((r) => r.name === k)?.label ?? resourceWord(k) ?? humanize(k);
}

// fieldLabel is a column's label when meta has it, else the key in words.
export function fieldLabel(meta: ResourceMeta | undefined, key: string): string {
  return meta?.columns.find((c) => c.name === key)?.label ?? payloadWord(key) ?? humanize(key);
}

const isoTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

// valueWords says one value in a line: a decimal with its column's scale,
// an instant through formatTime, JSON compactly.
export function valueWords(v: unknown, col?: Column): string {
  if (v === undefined) return '—';
  if (v === null) return i18n.t('none', { ns: 'history' });
  if (col?.kind === 'decimal') return formatDecimal(v, col.scale);
  if (typeof v === 'string') return (col ? isTimeColumn(col) : isoTime.test(v)) && isoTime.test(v) ? formatTime(v) : v;
  if (typeof v === 'boolean') return v ? i18n.t('yes', { ns: 'history' }) : i18n.t('no', { ns: 'history' });
  if (Array.isArray(v) && v.every((x) => typeof x !== 'object' || x === null)) return v.length === 0 ? i18n.t('none', { ns: 'history' }) : v.map(String).join(', ');
  return stringifyJSON(v) ?? '';
}

// pathChangeText says one place's change of a document, without its
// path: "100 → 777", "sword (added)", "1 (removed)".
export function pathChangeText(c: PathChange): string {
  if (!('before' in c)) return i18n.t('{{value}} (added)', { ns: 'history', value: valueWords(c.after) });
  if (!('after' in c)) return i18n.t('{{value}} (removed)', { ns: 'history', value: valueWords(c.before) });
  return `${valueWords(c.before)} → ${valueWords(c.after)}`;
}

// compositeKeyWords reads a composite key's row id (base64url of the JSON
// array of its values) as its values: "Player 07 · slot 2" without the
// labels the server gave. undefined when id is not one.
export function compositeKeyWords(id: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{4,}$/.test(id)) return undefined;
  try {
    const bin = atob(id.replace(/-/g, '+').replace(/_/g, '/'));
    const parts: unknown = JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
    if (!Array.isArray(parts) || parts.length < 2) return undefined;
    return parts.map((p) => String(p)).join(' · ');
  } catch {
    return undefined;
  }
}

// payloadSummary says an audit payload in one line for the audit list:
// "Treasury 0 → 2500.50 · +1 more"; where it came from (address,
// browser) is left to the entry's page.
export function payloadSummary(payload: unknown, meta: ResourceMeta | undefined, catalog?: ResourceMeta[]): string {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return valueWords(payload);
  const p = payload as Record<string, unknown>;
  const parts: string[] = [];
  for (const [k, c] of columnChanges(p.changes) ?? []) {
    const col = meta?.columns.find((x) => x.name === k);
    const say = (v: unknown) => (k === 'scopes' ? scopeWords(catalog, v) : valueWords(v, col));
    if (c.kind === 'value') parts.push(`${fieldLabel(meta, k)} ${say(c.before ?? null)} → ${say(c.after ?? null)}`);
    else if (c.kind === 'truncated') parts.push(`${fieldLabel(meta, k)}: ${tooLargeWords(c.bytes)}`);
    else for (const pc of c.paths) parts.push(`${fieldLabel(meta, k)} ${pathWords(pc.path)}: ${pathChangeText(pc)}`);
  }
  if (typeof p.changes === 'string') parts.push(i18n.t('Changes {{tooLarge}}', { ns: 'history', tooLarge: tooLargeWords(p.changes) }));
  for (const [k, v] of Object.entries(p)) {
    // A revert's entry number says nothing: the change it reverted is
    // said by its action (its entry's page links it by its time).
    if (k === 'changes' || k === 'ip' || k === 'userAgent' || k === 'row' || k === 'auditId') continue;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) continue;
    if (typeof v === 'string' && v.trim() === '') continue; // no reason given says nothing, not "Reason:"
    const said = k === 'scope' || k === 'scopes' ? scopeWords(catalog, v)
      : k === 'of' ? actionLabel(catalog?.find((r) => r.name === 'adminAudit')?.auditActions, v)
      : valueWords(v);
    parts.push(`${fieldLabel(undefined, k)}: ${said}`);
  }
  if (parts.length === 0) return '—';
  const head = parts.slice(0, 2).map((s) => (s.length > 48 ? s.slice(0, 47) + '…' : s)).join(' · ');
  return parts.length > 2 ? i18n.t('{{head}} · +{{count}} more', { ns: 'history', head, count: parts.length - 2 }) : head;
}

// scopeWords says a mod's scope (resource keys) by the resources' labels.
export function scopeWords(catalog: ResourceMeta[] | undefined, v: unknown): string {
  const keys = Array.isArray(v) ? v : v === null || v === undefined ? [] : [v];
  return keys.length === 0 ? i18n.t('none', { ns: 'history' }) : keys.map((k) => resourceLabel(catalog, k)).join(', ');
}
