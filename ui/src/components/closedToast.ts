import { toast } from 'sonner';
import { errorText } from '../api';
import i18n from '../i18n';

// ModerationResult is the answer of ban, unban and revoke-sessions.
export type { ModerationResult } from '../api';
import type { ModerationResult } from '../api';

// Undo is a toast's way back: its label is the button's, run does it and
// done says it was done ("Player 07 unbanned").
export interface Undo {
  run: () => Promise<unknown>;
  done: string;
  after?: () => unknown;
}

// undoSeconds is how long a toast offers Undo: long enough to read it and
// reach it (sonner's Alt+T moves the focus to the toasts, and a toast
// waits while the pointer or the focus is on it).
export const undoSeconds = 30;

// undoAction is sonner's action for an Undo: pressed, the toast closes and
// another says how the undo went.
export function undoAction(u: Undo) {
  return {
    label: i18n.t('Undo', { ns: 'common' }),
    onClick: () => {
      u.run().then(
        () => toast.success(u.done),
        (err: unknown) => toast.error(i18n.t('Undo failed: {{error}}', { ns: 'common', error: errorText(err) })),
      ).finally(() => void u.after?.());
    },
  };
}

// liveSessionsClosed says how many live connections (room sockets) a ban
// or revoke closed: "1 live session closed", "3 live sessions closed".
export const liveSessionsClosed = (n: number) => i18n.t('{{count}} live sessions closed', { ns: 'common', count: n });

// closedToast tells how a ban or revoke went: the sessions closed, and,
// when some game server could not be reached, that its players stay
// connected until it hears (they cannot sign in or rejoin meanwhile).
// With undo, it offers Undo for undoSeconds.
export function closedToast(done: string, r: ModerationResult, undo?: Undo) {
  const text = r.sessionsClosed !== undefined ? `${done}; ${liveSessionsClosed(r.sessionsClosed)}` : done;
  const action = undo ? { action: undoAction(undo) } : {};
  if (r.partial) {
    toast.warning(i18n.t('{{text}}. Some game servers could not be reached: players connected there stay until those servers hear of it; they cannot rejoin.', { ns: 'common', text }), { duration: 15_000, ...action });
  } else {
    toast.success(text, undo ? { duration: undoSeconds * 1000, ...action } : {});
  }
}
