import { client, dataOf, type Ok } from '../api';
import { liveSessionsClosed } from '../components/closedToast';
import i18n from '../i18n';

// The texts of this module are said outside components: their catalog
// loads with it, and again with each language chosen later.
void i18n.loadNamespaces('rows');

// BulkAnswer is POST /users/_bulk/{op}'s answer: what became of each id,
// and how many of each.
export type BulkAnswer = Ok<'/users/_bulk/{op}', 'post'>;

export const bulkModerate = (op: 'ban' | 'unban' | 'revoke-sessions', ids: string[], body: { reason?: string; until?: string | null } = {}) =>
  dataOf(client.POST('/users/_bulk/{op}', { params: { path: { op } }, body: { ids, ...body } }));

// The outcomes in words, in the order an operator reads them: how to say
// a count of each (said when the words are needed: the language can
// change).
const words: [string, (n: number) => string][] = [
  // Several named by what they are: "3 players unbanned", not "3 unbanned".
  ['banned', (n) => i18n.t('{{count, number}} players banned', { ns: 'rows', count: n })],
  ['unbanned', (n) => i18n.t('{{count, number}} players unbanned', { ns: 'rows', count: n })],
  // The count is of users: "sessions revoked" for one, not "1 sessions".
  ['revoked', (n) => i18n.t('sessions of {{count, number}} users revoked', { ns: 'rows', count: n })],
  ['already_banned', (n) => i18n.t('{{count, number}} already banned', { ns: 'rows', count: n })],
  ['not_banned', (n) => i18n.t('{{count, number}} not banned', { ns: 'rows', count: n })],
  ['forbidden', (n) => i18n.t('{{count, number}} not yours to moderate', { ns: 'rows', count: n })],
  ['self', (n) => i18n.t('{{count, number}} yourself, skipped', { ns: 'rows', count: n })],
  ['not_found', (n) => i18n.t('{{count, number}} not found', { ns: 'rows', count: n })],
];

// oneWord says the outcome r for one player, named.
function oneWord(r: string, name: string): string {
  switch (r) {
    case 'banned':
      return i18n.t('{{name}} banned', { ns: 'rows', name });
    case 'unbanned':
      return i18n.t('{{name}} unbanned', { ns: 'rows', name });
    case 'revoked':
      return i18n.t('Sessions of {{name}} revoked', { ns: 'rows', name });
    case 'already_banned':
      return i18n.t('{{name}} is banned already', { ns: 'rows', name });
    case 'not_banned':
      return i18n.t('{{name}} is not banned', { ns: 'rows', name });
    case 'forbidden':
      return i18n.t('{{name}} is not yours to moderate', { ns: 'rows', name });
    case 'self':
      return i18n.t('{{name}} is you: skipped', { ns: 'rows', name });
    case 'not_found':
      return i18n.t('{{name}} was not found', { ns: 'rows', name });
    default:
      // An outcome this panel does not know: the server's word for it.
      return `${name} ${r}`;
  }
}

// told adds to text what else happened: the live sessions closed, and
// that some game servers could not be told.
function told(text: string, a: BulkAnswer): string {
  let out = text;
  if (a.sessionsClosed) out += '; ' + liveSessionsClosed(a.sessionsClosed);
  if (a.partial) out = i18n.t('{{text}} (some servers could not be told yet)', { ns: 'rows', text: out });
  return out;
}

// bulkOutcome says an answer in one line: "7 banned, 1 already banned".
// ok is false when some were not done for a reason other than being done
// already.
// With one id, the player is named: "Player 07 banned", not "1 banned".
export function bulkOutcome(a: BulkAnswer, name?: (id: string) => string): { text: string; ok: boolean } {
  const ids = Object.keys(a.results);
  const one = name && ids.length === 1 ? ids[0]! : undefined;
  const parts = words.filter(([k]) => (a.counts[k] ?? 0) > 0).map(([k, w]) => w(a.counts[k] ?? 0));
  const ok = !['forbidden', 'not_found'].some((k) => (a.counts[k] ?? 0) > 0);
  if (one !== undefined && name) return { text: told(oneWord(a.results[one] ?? '', name(one)), a), ok };
  const text = told(parts.join(', ') || i18n.t('Nothing to do', { ns: 'rows' }), a);
  return { text: text[0]!.toUpperCase() + text.slice(1), ok };
}
