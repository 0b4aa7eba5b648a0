import { toast } from 'sonner';

// ModerationResult is the answer of ban, unban and revoke-sessions.
export interface ModerationResult {
  ok: boolean;
  sessionsClosed?: number;
  partial?: boolean;
}

// liveSessionsClosed says how many live connections (room sockets) a ban
// or revoke closed: "1 live session closed", "3 live sessions closed".
export const liveSessionsClosed = (n: number) => `${n} live session${n === 1 ? '' : 's'} closed`;

// closedToast tells how a ban or revoke went: the sessions closed, and,
// when some game server could not be reached, that its players stay
// connected until it hears (they cannot sign in or rejoin meanwhile).
export function closedToast(done: string, r: ModerationResult) {
  const text = r.sessionsClosed !== undefined ? `${done}; ${liveSessionsClosed(r.sessionsClosed)}` : done;
  if (r.partial) {
    toast.warning(`${text}. Some game servers could not be reached: players connected there stay until those servers hear of it; they cannot rejoin.`, { duration: 15_000 });
  } else {
    toast.success(text);
  }
}
