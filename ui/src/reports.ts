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
  // readable: the operator may open the row (absent from an older server).
  | { kind: 'row'; resource: string; id: string; label?: string; readable?: boolean }
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
  // resolution: a resolved report's details; note and reason only for an
  // admin and the operator who resolved it.
  resolution?: { until?: string; permanent?: boolean; note?: string; reason?: string };
}

export interface Claim {
  by: UserRef;
  at: string;
  // stale: the claim expired; another moderator's claim takes it.
  stale?: boolean;
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

// pollEvery is how often an open reports screen reads the queue again
// while the tab is visible (and at once when the window regains focus):
// other moderators claim, take over and resolve meanwhile.
export const pollEvery = 12_000;

// useReportsQueue reads the queue; the unfiltered one also feeds the
// sidebar's count. poll: the screen showing it reads it again every
// pollEvery and on focus (the rows stay while it does).
export function useReportsQueue(qs: string, enabled = true, poll = false) {
  return useQuery({
    queryKey: queueKey(qs),
    queryFn: () => dataOf(client.GET('/_reports', { querySerializer: () => qs })).then((q) => q as Queue),
    enabled,
    staleTime: poll ? 0 : 15_000,
    refetchInterval: poll ? pollEvery : false,
    refetchOnWindowFocus: poll,
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
