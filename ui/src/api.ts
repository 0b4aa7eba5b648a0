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
  // row and etag, on a 409 conflict of a write whose If-Match the row no
  // longer is: the row as it is now (as the operator's role reads it) and
  // its version, so the operator can see what changed and try again on it.
  readonly row?: Row;
  readonly etag: string;
  constructor(status: number, code: string, message: string, fields: Record<string, string> = {}, row?: Row, etag = '') {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
    this.row = row;
    this.etag = etag;
  }
}

// isStale says err is the refusal of a write whose row changed since it
// was read (409 conflict with the row as it is now).
export function isStale(err: unknown): err is ApiError & { row: Row } {
  return err instanceof ApiError && err.status === 409 && err.code === 'conflict' && err.row !== undefined;
}

// staleText says, in a toast, a write refused because its row changed
// since the operator read it (isStale): nothing was done (what), and the
// page shows the row as it is now. The server's own message is for API
// clients.
export function staleText(what: string): string {
  return `This row changed since you opened it, so nothing was ${what}. It now shows as it is: look again before trying again.`;
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

interface Answer<T> {
  data: T;
  headers: Headers;
}

// Versioned is a row with its version: the ETag of the answer that
// carried it, which a write of that row sends back in If-Match. It is ''
// where the answer had none (a list's rows, a delete for good).
export interface Versioned {
  row: Row;
  etag: string;
}

// WriteOptions say how a write is sent. ifMatch is the ETag of the row as
// the operator saw it: the server writes only while the row is still that
// version, else answers 409 conflict with the row as it is now (isStale);
// empty, the write is not checked. merge sends the body as an RFC 7396
// merge patch (docs/api.md, "Merge patches"): a JSON column's object is
// merged into the stored document instead of replacing it.
export interface WriteOptions {
  ifMatch?: string;
  merge?: boolean;
}

interface Request extends WriteOptions {
  body?: unknown;
  signal?: AbortSignal;
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

async function send<T>(method: string, path: string, req: Request = {}, retried = false): Promise<Answer<T>> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const init: RequestInit = { method, credentials: 'same-origin', headers, signal: req.signal };
  if (req.body !== undefined) {
    headers['Content-Type'] = req.merge ? 'application/merge-patch+json' : 'application/json';
    init.body = stringifyJSON(req.body);
  }
  if (req.ifMatch) headers['If-Match'] = req.ifMatch;
  let res: Response;
  try {
    res = await fetch(API + path, init);
  } catch (err) {
    // An abort is the caller's (a search overtaken by the next): not an
    // unreachable server.
    if (req.signal?.aborted) throw err;
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
    const e = (data ?? {}) as { error?: unknown; code?: unknown; fields?: unknown; row?: unknown };
    const message = typeof e.error === 'string' && e.error !== '' ? e.error : `Request failed (${res.status})`;
    const fields = e.fields && typeof e.fields === 'object' ? Object.fromEntries(Object.entries(e.fields).filter((kv): kv is [string, string] => typeof kv[1] === 'string')) : {};
    // The session check refuses before any handler runs: nothing was
    // done, so sending again once signed in is safe.
    if (res.status === 401 && e.code === 'unauthenticated' && !retried && reauth && !signInPath.test(path) && (await reauth(method))) {
      return send<T>(method, path, req, true);
    }
    const row = e.row !== null && typeof e.row === 'object' && !Array.isArray(e.row) ? (e.row as Row) : undefined;
    throw new ApiError(res.status, typeof e.code === 'string' ? e.code : 'http_' + res.status, message, fields, row, res.headers.get('ETag') ?? '');
  }
  return { data: data as T, headers: res.headers };
}

const versioned = (a: Answer<Row>): Versioned => ({ row: a.data, etag: a.headers.get('ETag') ?? '' });

export const api = {
  // signal aborts the request: TanStack Query's queryFn gets one, aborted
  // when the query's key changes before the answer.
  get: <T>(path: string, signal?: AbortSignal) => send<T>('GET', path, { signal }).then((a) => a.data),
  post: <T>(path: string, body: unknown = {}, opts?: WriteOptions) => send<T>('POST', path, { body, ...opts }).then((a) => a.data),
  patch: <T>(path: string, body: unknown) => send<T>('PATCH', path, { body }).then((a) => a.data),
  del: <T>(path: string, body?: unknown) => send<T>('DELETE', path, { body }).then((a) => a.data),
  // read is a row by id with its version (queries.ts rowQuery reads
  // every row the panel shows by id through it).
  read: (path: string, signal?: AbortSignal) => send<Row>('GET', path, { signal }).then(versioned),
  // writeRow is a write whose answer is one row (a create, an update, a
  // delete, a restore, a revert): the row and its version now.
  writeRow: (method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, opts?: WriteOptions) => send<Row>(method, path, { body, ...opts }).then(versioned),
  list: async (path: string, params: URLSearchParams, signal?: AbortSignal): Promise<ListPage> => {
    const qs = params.toString();
    const a = await send<Row[]>('GET', qs ? `${path}?${qs}` : path, { signal });
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
