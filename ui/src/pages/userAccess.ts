import type { Me, ResourceMeta, Row } from '../api';

// mayChangeUser mirrors the server's rule on every write to a users row
// (roles.go, canWriteUser): only an admin changes the account of an
// operator (a mod or an admin). The target's role is the row's _role, or
// the operator's own when the row is their account. Moderating oneself is
// refused apart (mayModerateUser).
export function mayChangeUser(me: Me | undefined, id: string, row: Row | undefined): boolean {
  if (!me || me.role === 'admin') return true;
  const role = me.userId === id ? me.role : row?._role;
  return role !== 'admin' && role !== 'mod';
}

// mayModerateUser is mayChangeUser for ban, unban and revoke, which the
// server also refuses on one's own account.
export function mayModerateUser(me: Me | undefined, id: string, row: Row | undefined): boolean {
  return me?.userId !== id && mayChangeUser(me, id, row);
}

// isErased reports a users row whose personal data was erased (POST
// /users/:id/_erase): its email is then erased-<id>@erased.invalid and it
// can never sign in again. It reads as "Erased player", with no action
// that would need a person behind it.
export function isErased(meta: ResourceMeta, row: Row | undefined): boolean {
  if (meta.name !== 'users' || !row) return false;
  if (row._erased === true) return true; // a list row already shown as erased
  const email = row[meta.emailColumn ?? 'email'];
  return typeof email === 'string' && /^erased-[^@]*@erased\.invalid$/.test(email);
}

// erasedName is how an erased account is named.
export const erasedName = 'Erased player';

// userLabel is how a link to a users row reads: an erased account's
// label (its erased-<id> name or email) as "Erased player".
export function userLabel(label: string): string {
  return /^erased-[^@\s]*(@erased\.invalid)?$/.test(label) ? erasedName : label;
}

// userEditRefusal says why the operator may only look at a users row's
// form, or '' when they may change it: the server refuses a mod's change
// to an operator's account, and an erased account's data is gone.
export function userEditRefusal(me: Me | undefined, meta: ResourceMeta, id: string, row: Row | undefined): string {
  if (meta.name !== 'users') return '';
  if (isErased(meta, row)) return 'This player was erased: there is nothing left to edit.';
  if (!mayChangeUser(me, id, row)) {
    if (me?.userId === id) return "Only an admin changes an operator's account, yours included. You can look, not save.";
    const role = row?._role;
    return `This account is ${role === 'admin' ? 'an admin' : 'a mod'}'s: only an admin changes operators' accounts. You can look, not save.`;
  }
  return '';
}
