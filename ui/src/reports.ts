// Player reports as the server answers them (GET /_reports): the queue
// grouped by reported player, and one player's reports.
import { useQuery } from '@tanstack/react-query';
import { ApiError, client, dataOf } from './api';
import i18n from './i18n';
import { useMe, useUsersMeta } from './queries';

export interface UserRef {
  id: string;
  // label: absent when the operator may not read that user.
  label?: string;
}

export interface Category {
  key: string;
  label: string;
  evidence?: string;
  resource?: string;
}

export type Evidence =
  | { kind: 'text'; text: string }
  | { kind: 'row'; resource: string; id: string; label?: string }
  | { kind: 'json'; json: unknown };

export interface ReportRoom {
  id: string;
  live: boolean;
  sessionId?: string;
  sessionLive?: boolean;
}

export interface Report {
  id: number | string;
  category: string;
  categoryLabel: string;
  text?: string;
  count: number;
  status: 'open' | 'resolved';
  createdAt: string;
  lastAt: string;
  player: UserRef;
  reporter?: UserRef;
  evidence?: Evidence;
  room?: ReportRoom;
  resolvedAt?: string;
  resolvedBy?: UserRef;
  outcome?: string;
}

export interface Claim {
  by: UserRef;
  at: string;
}

export interface ReportedPlayer {
  player: UserRef;
  count: number;
  last24h: number;
  filings: number;
  firstAt: string;
  lastAt: string;
  categories: { key: string; label: string; count: number }[];
  reporters: UserRef[];
  claim: Claim | null;
  latest: Report[];
}

export interface Queue {
  categories: Category[];
  players: ReportedPlayer[];
  hasMore: boolean;
  limit: number;
  offset: number;
}

export interface PlayerReports {
  player: UserRef;
  claim: Claim | null;
  received: Report[];
  filed: Report[];
}

// name is a user as a person reads them: the label, else "a player" with
// the id left to a title (in the operator's language, said when asked).
export const name = (u: UserRef | undefined) => u?.label || i18n.t('a player', { ns: 'reports' });

// queueKey is the queue's cache key for a filter (the query string).
export const queueKey = (qs: string) => ['reports', 'queue', qs];

// useReportsQueue reads the queue; the unfiltered one also feeds the
// sidebar's count.
export function useReportsQueue(qs: string, enabled = true) {
  return useQuery({
    queryKey: queueKey(qs),
    queryFn: () => dataOf(client.GET('/_reports', { querySerializer: () => qs })).then((q) => q as Queue),
    enabled,
    staleTime: 15_000,
  });
}

// useReportsOn says whether the Reports screen is offered: the operator
// may list users (reports act on players) and the game declares report
// categories (/auth/me's features.reports; else the server answers 404
// reports_off). undefined while that is not known yet.
export function useReportsOn(): { on: boolean | undefined; queue: Queue | undefined } {
  const users = useUsersMeta();
  const me = useMe();
  const may = !!users?.permissions.list && me.data?.features?.reports !== false;
  const q = useReportsQueue('', may && me.isSuccess);
  if (!users || !me.isSuccess) return { on: undefined, queue: undefined };
  if (!may) return { on: false, queue: undefined };
  if (q.isSuccess) return { on: true, queue: q.data };
  if (q.error instanceof ApiError && (q.error.code === 'reports_off' || q.error.status === 403 || q.error.status === 404)) return { on: false, queue: undefined };
  return { on: q.isError ? false : undefined, queue: undefined };
}
