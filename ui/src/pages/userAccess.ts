import type { Me, Row } from '../api';

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
