// The panel's HTTP API (docs/api.md). Every request is same-origin with
// the session cookie; bodies are JSON.
import { apiPath } from './uiPath';
import { parseJSON, stringifyJSON } from './json';

export const API = apiPath;

export type DataType = 'string' | 'integer' | 'number' | 'boolean' | 'datetime' | 'json' | 'bytes';

export interface LinkTo {
  resource?: string;
  resourceFromColumn?: string;
  labelColumn?: string;
}

export interface Column {
  name: string;
  label: string;
  type: string;
  dataType: DataType;
  notNull: boolean;
  primary: boolean;
  hasDefault: boolean;
  readOnly: boolean;
  // What _sort and filters accept (json and bytes columns do not sort).
  sortable?: boolean;
  filterable?: boolean;
  linkTo?: LinkTo;
  // ColumnConfig.Choices, else an enum's labels: the only values the
  // column takes.
  choices?: string[];
  // kind: how the server shows, filters and writes the column, from the
  // database's own type; elem: an array's element kind.
  kind?: ColumnKind;
  elem?: ColumnKind;
  required?: boolean;
  maxLength?: number;
  // scale: the digits a decimal column keeps after the point
  // (numeric(12,2): 2); absent for a bare numeric.
  scale?: number;
  // technical: the panel's machinery (a token version), kept out of the way.
  technical?: boolean;
}

export type ColumnKind =
  | 'text' | 'number' | 'decimal' | 'bool' | 'time' | 'date' | 'timestamp-local'
  | 'uuid' | 'enum' | 'array' | 'json' | 'inet' | 'bytes';

export interface ActionMeta {
  name: string;
  label: string;
  perRow: boolean;
  confirm?: { title: string; description?: string };
}

export interface RelationMeta {
  name: string;
  label: string;
  target: string;
  kind: 'one' | 'many';
  fk: string;
}

export interface Permissions {
  list: boolean;
  read: boolean;
  create: boolean;
  update: boolean;
  delete: boolean;
}

export interface ResourceMeta {
  name: string;
  label: string;
  icon: string;
  primaryKey: string[];
  columns: Column[];
  listColumns?: string[];
  formFields?: string[];
  showFields?: string[];
  defaultSort?: { field: string; order: 'asc' | 'desc' };
  actions: ActionMeta[];
  relations: RelationMeta[];
  permissions: Permissions;
  // banColumn, on users, is the column holding the ban when bans are on.
  banColumn?: string;
  // emailColumn, on users, holds the account's email.
  emailColumn?: string;
  // softDeleteColumn: a delete sets it and keeps the row (_deleted, _restore).
  softDeleteColumn?: string;
  // readOnly says why the panel never writes the resource (a view, no key).
  readOnly?: string;
  // auditActions, on adminAudit, says every action the panel records in
  // words (action → label).
  auditActions?: Record<string, string>;
}

// _invalid names the cells the server could not show as stored, each
// with why (invalid UTF-8, a value its Go type cannot hold).
// _role, on a users row, is the account's panel role when it has one
// ("admin" or "mod"; absent for a player).
export type Row = Record<string, unknown> & { _labels?: Record<string, string>; _invalid?: Record<string, string>; _role?: string };

export interface AuthStatus {
  needsBootstrap: boolean;
  // setupTokenRequired: creating the first admin needs the setup link
  // the server logged (always, while no admin exists).
  setupTokenRequired?: boolean;
  authenticated: boolean;
  userId: string | null;
  role: string | null;
}

export interface Me {
  userId: string;
  role: string;
  email: string;
  displayName: string;
  scopes: string[];
  // features: which optional parts the server has; the UI offers only
  // those (a users table without ban or token version columns, a game
  // without live rooms answer 501).
  features?: { ban: boolean; revokeSessions: boolean; rooms: boolean; reports?: boolean };
}

export interface Widget {
  id: string;
  title: string;
  render: 'kpi' | 'stats' | 'table' | 'json' | 'series';
  // resource: a table widget of this resource's rows (list columns, links).
  resource?: string;
  data: unknown;
  error?: string;
  // more: a table that shows some of its rows: how many in all, and where.
  more?: Stat;
}

// Stat is one figure of a "stats" widget; link is a path of the UI.
export interface Stat {
  label: string;
  value: number;
  estimated?: boolean;
  link?: string;
}

// SeriesData is a "series" widget's data: lines of points (t in RFC
// 3339), every step seconds.
export interface SeriesData {
  unit?: string;
  step: number;
  series: { name: string; points: { t: string; v: number }[] }[];
}

export interface RoomSummary {
  roomId: string;
  name: string;
  clients: number;
  maxClients: number;
  locked: boolean;
  createdAt: string;
  /** The game-server node holding the room; absent for a single process. */
  node?: string;
}

export interface RoomView extends RoomSummary {
  metadata: unknown;
  clientList: { sessionId: string; userId: string; joinedAt: string }[];
  state: unknown;
}

export interface UserSession {
  roomId: string;
  [key: string]: unknown;
}

// ApiError is a refused request: the server's error body, or a stand-in
// when the answer was not JSON.
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  // fields: what is wrong with each field the server named, by column.
  readonly fields: Record<string, string>;
  constructor(status: number, code: string, message: string, fields: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

interface Answer<T> {
  data: T;
  headers: Headers;
}

// reauth is set while the panel's layout is on screen (auth/session.ts):
// a request refused because the session ended (401 unauthenticated: expired,
// signed out elsewhere, revoked) waits while the operator signs in again in
// a dialog, then is sent once more. It resolves to false when the operator
// gives up, and the 401 stands.
let reauth: ((method: string) => Promise<boolean>) | null = null;
export function setReauth(fn: ((method: string) => Promise<boolean>) | null) {
  reauth = fn;
}

// The sign-in endpoints answer 401 for a wrong password or code: theirs
// is never a session that ended.
const signInPath = /^\/auth\/(login|bootstrap|reset|logout|status)/;

async function send<T>(method: string, path: string, body?: unknown, retried = false, signal?: AbortSignal): Promise<Answer<T>> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { Accept: 'application/json' }, signal };
  if (body !== undefined) {
    init.headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
    init.body = stringifyJSON(body);
  }
  let res: Response;
  try {
    res = await fetch(API + path, init);
  } catch (err) {
    // An abort is the caller's (a search overtaken by the next): not an
    // unreachable server.
    if (signal?.aborted) throw err;
    throw new ApiError(0, 'network', 'The server could not be reached.');
  }
  const text = await res.text();
  let data: unknown = null;
  if (text !== '') {
    try {
      data = parseJSON(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    const e = (data ?? {}) as { error?: unknown; code?: unknown; fields?: unknown };
    const message = typeof e.error === 'string' && e.error !== '' ? e.error : `Request failed (${res.status})`;
    const fields = e.fields && typeof e.fields === 'object' ? Object.fromEntries(Object.entries(e.fields).filter((kv): kv is [string, string] => typeof kv[1] === 'string')) : {};
    // The session check refuses before any handler runs: nothing was
    // done, so sending again once signed in is safe.
    if (res.status === 401 && e.code === 'unauthenticated' && !retried && reauth && !signInPath.test(path) && (await reauth(method))) {
      return send<T>(method, path, body, true, signal);
    }
    throw new ApiError(res.status, typeof e.code === 'string' ? e.code : 'http_' + res.status, message, fields);
  }
  return { data: data as T, headers: res.headers };
}

export const api = {
  // signal aborts the request: TanStack Query's queryFn gets one, aborted
  // when the query's key changes before the answer.
  get: <T>(path: string, signal?: AbortSignal) => send<T>('GET', path, undefined, false, signal).then((a) => a.data),
  post: <T>(path: string, body: unknown = {}) => send<T>('POST', path, body).then((a) => a.data),
  patch: <T>(path: string, body: unknown) => send<T>('PATCH', path, body).then((a) => a.data),
  del: <T>(path: string, body?: unknown) => send<T>('DELETE', path, body).then((a) => a.data),
  list: async (path: string, params: URLSearchParams, signal?: AbortSignal): Promise<ListPage> => {
    const qs = params.toString();
    const a = await send<Row[]>('GET', qs ? `${path}?${qs}` : path, undefined, false, signal);
    const total = Number(a.headers.get('x-total-count') ?? a.data.length);
    return {
      rows: a.data,
      total: Number.isFinite(total) ? total : a.data.length,
      estimated: a.headers.get('x-total-count-estimated') === 'true',
      next: a.headers.get('x-next-cursor') ?? '',
    };
  },
};

export interface ListPage {
  rows: Row[];
  total: number;
  estimated: boolean;
  /** X-Next-Cursor of a keyset page (_limit): empty on the last page. */
  next: string;
}

// seg escapes one path segment.
export const seg = encodeURIComponent;
