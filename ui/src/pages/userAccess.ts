import type { Me, ResourceMeta, Row } from '../api';
import i18n from '../i18n';

// The rules on users rows are the server's, read from it rather than
// copied: whose accounts the operator may change (GET /auth/me
// changesAccountsOf, the rule of every write to a users row), which
// resource is the users one and how an erased account reads (the
// catalog's users and erasedPattern).

// mayChangeUser says whether the server lets the operator change the
// users row id: its role is the row's _role (absent for a player), or the
// operator's own when the row is their account. Moderating oneself is
// refused apart (mayModerateUser).
export function mayChangeUser(me: Me | undefined, id: string, row: Row | undefined): boolean {
  if (!me) return true;
  const role = me.userId === id ? me.role : (row?._role ?? 'user');
  return me.changesAccountsOf.some((r) => r === role);
}

// mayModerateUser is mayChangeUser for ban, unban and revoke, which the
// server also refuses on one's own account.
export function mayModerateUser(me: Me | undefined, id: string, row: Row | undefined): boolean {
  return me?.userId !== id && mayChangeUser(me, id, row);
}

// erasedPattern is the catalog's erasedPattern of the users resource as a
// regular expression.
const patterns = new Map<string, RegExp>();
function erasedPattern(meta: ResourceMeta): RegExp | undefined {
  const p = meta.erasedPattern;
  if (!p) return undefined;
  let re = patterns.get(p);
  if (!re) patterns.set(p, (re = new RegExp(p)));
  return re;
}

// isErased reports a users row whose personal data was erased (POST
// /users/:id/_erase): its email is then what the catalog's erasedPattern
// matches, and it can never sign in again. It reads as "Erased player",
// with no action that would need a person behind it.
export function isErased(meta: ResourceMeta, row: Row | undefined): boolean {
  if (!meta.users || !row) return false;
  if (row._erased === true) return true; // a list row already shown as erased
  const email = row[meta.emailColumn ?? 'email'];
  return typeof email === 'string' && erasedPattern(meta)?.test(email) === true;
}

// erasedLabel is how an erased account is named, in the operator's
// language (asked each time it is said: the language can change).
export function erasedLabel(): string {
  return i18n.t('Erased player', { ns: 'moderation' });
}

// userLabel is how a link to a row of users (meta) reads: an erased
// account's label (its erased-<id> name or email) as "Erased player".
export function userLabel(meta: ResourceMeta | undefined, label: string): string {
  const re = meta && erasedPattern(meta);
  return re?.test(label) ? erasedLabel() : label;
}

// userEditRefusal says why the operator may only look at a users row's
// form, or '' when they may change it: the server refuses a mod's change
// to an operator's account, and an erased account's data is gone.
export function userEditRefusal(me: Me | undefined, meta: ResourceMeta, id: string, row: Row | undefined): string {
  if (!meta.users) return '';
  if (isErased(meta, row)) return i18n.t('This player was erased: there is nothing left to edit.', { ns: 'moderation' });
  if (!mayChangeUser(me, id, row)) {
    if (me?.userId === id) return i18n.t("Only an admin changes an operator's account, yours included. You can look, not save.", { ns: 'moderation' });
    return row?._role === 'admin'
      ? i18n.t("This account is an admin's: only an admin changes operators' accounts. You can look, not save.", { ns: 'moderation' })
      : i18n.t("This account is a mod's: only an admin changes operators' accounts. You can look, not save.", { ns: 'moderation' });
  }
  return '';
}
