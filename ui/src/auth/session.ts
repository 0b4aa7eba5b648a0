import { useSyncExternalStore } from 'react';
import { setReauth } from '../api';

// The session as the panel's layout knows it: ended once a request is
// refused with 401 unauthenticated (it expired, was signed out elsewhere,
// or an admin revoked it). While it has ended, refused requests wait
// (api.ts reauth) for the sign-in dialog: signed in again, they are sent
// once more, so a pending save goes through; given up, they fail as
// before and the form keeps what was typed.

interface State {
  // ended: the session is over; the header says signed out.
  ended: boolean;
  // asking: the sign-in dialog is open.
  asking: boolean;
}

let state: State = { ended: false, asking: false };
let waiters: ((ok: boolean) => void)[] = [];
const listeners = new Set<() => void>();

function set(next: State) {
  state = next;
  for (const l of listeners) l();
}

function subscribe(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

export const useSession = () => useSyncExternalStore(subscribe, () => state);

// waitForSignIn is api.ts's reauth: it opens the dialog and resolves once
// the operator signed in again (true) or gave up (false). Once they gave
// up, only what they do (a save, an action: not a GET, which a page may
// repeat on its own) opens it again.
function waitForSignIn(method: string): Promise<boolean> {
  if (state.ended && !state.asking && method === 'GET') return Promise.resolve(false);
  set({ ended: true, asking: true });
  return new Promise((resolve) => waiters.push(resolve));
}

function settle(ok: boolean) {
  const w = waiters;
  waiters = [];
  for (const resolve of w) resolve(ok);
}

// signedInAgain ends the wait: every request that waited is sent again.
export function signedInAgain() {
  set({ ended: false, asking: false });
  settle(true);
}

// giveUp closes the dialog: what waited fails with its 401; the session
// stays ended (the header offers Sign in) until the next refused request
// or askSignIn opens the dialog again.
export function giveUp() {
  set({ ended: true, asking: false });
  settle(false);
}

// askSignIn opens the dialog from the header's Sign in.
export function askSignIn() {
  set({ ended: true, asking: true });
}

// reset forgets an ended session: a sign-out on purpose, another operator
// signed in.
export function resetSession() {
  set({ ended: false, asking: false });
  settle(false);
}

// reauthEnabled: the layout is on screen, and the dialog (not the sign-in
// page) answers a session that ended.
export const reauthEnabled = () => enabled;
let enabled = false;

// stopReauth: the operator signs out on purpose; a 401 meanwhile is no
// session that ended under them.
export function stopReauth() {
  setReauth(null);
  enabled = false;
  resetSession();
}

// enableReauth is called while the layout is mounted: outside it (the
// sign-in page, the reset page) a 401 is just an answer.
export function enableReauth(): () => void {
  setReauth(waitForSignIn);
  enabled = true;
  return stopReauth;
}
