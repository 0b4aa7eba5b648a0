import { client, dataOf, type Ok } from '../api';
import { liveSessionsClosed } from '../components/closedToast';

// BulkAnswer is POST /users/_bulk/{op}'s answer: what became of each id,
// and how many of each.
export type BulkAnswer = Ok<'/users/_bulk/{op}', 'post'>;

export const bulkModerate = (op: 'ban' | 'unban' | 'revoke-sessions', ids: string[], body: { reason?: string; until?: string | null } = {}) =>
  dataOf(client.POST('/users/_bulk/{op}', { params: { path: { op } }, body: { ids, ...body } }));

// The outcomes in words, in the order an operator reads them: a count
// and its word, or how to say the count.
const words: [string, string | ((n: number) => string)][] = [
  // Several named by what they are: "3 players unbanned", not "3 unbanned".
  ['banned', (n) => `${n} player${n === 1 ? '' : 's'} banned`],
  ['unbanned', (n) => `${n} player${n === 1 ? '' : 's'} unbanned`],
  // The count is of users: "sessions revoked" for one, not "1 sessions".
  ['revoked', (n) => (n === 1 ? 'sessions revoked' : `sessions of ${n} users revoked`)],
  ['already_banned', 'already banned'],
  ['not_banned', 'not banned'],
  ['forbidden', 'not yours to moderate'],
  ['self', 'yourself, skipped'],
  ['not_found', 'not found'],
];

// oneWords say the outcome for one player, after their name.
const oneWords: Record<string, string> = {
  banned: 'banned',
  unbanned: 'unbanned',
  already_banned: 'is banned already',
  not_banned: 'is not banned',
  forbidden: 'is not yours to moderate',
  self: 'is you: skipped',
  not_found: 'was not found',
};

// bulkOutcome says an answer in one line: "7 banned, 1 already banned".
// ok is false when some were not done for a reason other than being done
// already.
// With one id, the player is named: "Player 07 banned", not "1 banned".
export function bulkOutcome(a: BulkAnswer, name?: (id: string) => string): { text: string; ok: boolean } {
  const ids = Object.keys(a.results);
  const one = name && ids.length === 1 ? ids[0]! : undefined;
  const parts = words.filter(([k]) => (a.counts[k] ?? 0) > 0).map(([k, w]) => {
    const n = a.counts[k] ?? 0;
    return typeof w === 'string' ? `${n} ${w}` : w(n);
  });
  const ok = !['forbidden', 'not_found'].some((k) => (a.counts[k] ?? 0) > 0);
  if (one !== undefined && name) {
    const r = a.results[one] ?? '';
    let text = r === 'revoked' ? `Sessions of ${name(one)} revoked` : `${name(one)} ${oneWords[r] ?? r}`;
    if (a.sessionsClosed) text += '; ' + liveSessionsClosed(a.sessionsClosed);
    if (a.partial) text += ' (some servers could not be told yet)';
    return { text, ok };
  }
  let text = parts.join(', ') || 'Nothing to do';
  if (a.sessionsClosed) text += '; ' + liveSessionsClosed(a.sessionsClosed);
  if (a.partial) text += ' (some servers could not be told yet)';
  return { text: text[0]!.toUpperCase() + text.slice(1), ok };
}
