// The panel's HTTP API (docs/api.md). Every request is same-origin with
// the session cookie; bodies are JSON.
import createClient from 'openapi-fetch';
import type { components, paths } from './api.gen';
import { apiPath } from './uiPath';
import { parseJSON, stringifyJSON } from './json';
import i18n from './i18n';
import type { FieldProblem, Params } from './errorWords';

export type { FieldProblem } from './errorWords';

export const API = apiPath;

// words are the server's refusals in words of a language other than
// English (errorWords.ts): a chunk loaded with that language, as its
// catalogs are, so an English first visit does not carry it. Until it is
// there, a refusal reads as the server said it.
let words: typeof import('./errorWords') | undefined;
function loadWords() {
  if (words || (i18n.language ?? 'en').startsWith('en')) return;
  void i18n.loadNamespaces('errors');
  void import('./errorWords').then((m) => (words = m));
}
i18n.on('languageChanged', loadWords);
loadWords();

// The API's types are generated from its OpenAPI document
// (openapi.json, then src/api.gen.ts: `npm run gen:api`, which CI checks):
// these are their names in the panel.
export type Schemas = components['schemas'];
export type Column = Schemas['Column'];
export type DataType = Column['dataType'];
export type ColumnKind = Column['kind'];
export type LinkTo = NonNullable<Column['linkTo']>;
export type ResourceMeta = Schemas['Resource'];
export type ActionMeta = ResourceMeta['actions'][number];
export type RelationMeta = ResourceMeta['relations'][number];
export type Permissions = ResourceMeta['permissions'];
// Row is a row of any resource: its columns by name; _labels names its
// linked rows, _invalid the cells the server could not show as stored,
// _role (a users row) the account's panel role when it is an operator.
export type Row = Schemas['Row'];
export type AuthStatus = Schemas['AuthStatus'];
// Me is the signed-in operator with what the panel has (features) and the
// rules the UI follows rather than copies: whose accounts they may change
// (changesAccountsOf) and the ban lengths (banPresets).
export type Me = Schemas['Me'];
export type BanPreset = Schemas['BanPreset'];
export type RoomSummary = Schemas['RoomSummary'];
export type RoomView = Schemas['RoomView'];
export type UserSession = Schemas['UserSession'];
export type ModerationResult = Schemas['ModerationResult'];

// Ok is the JSON answer (200) of a path's method in the document.
export type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: { 200: { content: { 'application/json': infer T } } } } ? T : never;

// Widget is a dashboard widget as computed for the operator; builtin
// marks the panel's own, whose English the UI says in the operator's
// language. Stat is one figure of a "stats" widget; link is a path of
// the UI.
export type Widget = Schemas['Widget'];
export type Stat = Schemas['Stat'];

// SeriesData is a "series" widget's data: lines of points (t in RFC
// 3339), every step seconds.
export interface SeriesData {
  unit?: string;
  step: number;
  series: { name: string; points: { t: string; v: number }[] }[];
}

// ApiError is a refused request: the server's error body, or a stand-in
// when the answer was not JSON. Its message is the server's English;
// errorText says it in the operator's language.
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  // fields: what is wrong with each field the server named, by column, in
  // the server's English; problems: the same as codes with the values they
  // name (fieldProblemText says one in the operator's language).
  readonly fields: Record<string, string>;
  readonly problems: Record<string, FieldProblem>;
  // params: the values the message names, by name ({"max": 32}).
  readonly params: Params;
  // row and etag, on a 409 conflict of a write whose If-Match the row no
  // longer is: the row as it is now (as the operator's role reads it) and
  // its version, so the operator can see what changed and try again on it.
  readonly row?: Row;
  readonly etag: string;
  constructor(status: number, code: string, message: string, fields: Record<string, string> = {}, row?: Row, etag = '', params: Params = {}, problems: Record<string, FieldProblem> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
    this.problems = problems;
    this.params = params;
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
export function staleText(what: 'restored' | 'deleted' | 'saved'): string {
  switch (what) {
    case 'restored':
      return i18n.t('This row changed since you opened it, so nothing was restored. It now shows as it is: look again before trying again.', { ns: 'errors' });
    case 'deleted':
      return i18n.t('This row changed since you opened it, so nothing was deleted. It now shows as it is: look again before trying again.', { ns: 'errors' });
    case 'saved':
      return i18n.t('This row changed since you opened it, so nothing was saved. It now shows as it is: look again before trying again.', { ns: 'errors' });
  }
}

// failed is the message of a refusal without an error body (a proxy's
// page): errorText says it in the operator's language.
const failed = (status: number) => `Request failed (${status})`;

// inEnglish: the panel speaks English, where a refusal is the server's
// own words. Until another language's errors catalog is in, English too.
const inEnglish = () => (i18n.resolvedLanguage ?? 'en') === 'en' || !i18n.hasLoadedNamespace('errors');

// errorText says err for the operator: a refusal of the server by its
// code and params in the operator's language (the server's own English
// in English, or where the panel has no words for the code), a request
// that got no answer, anything else by its message.
export function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (!(err instanceof ApiError)) return err.message;
  if (err.code === 'network') return i18n.t('The server could not be reached.', { ns: 'errors' });
  if (err.code === 'http_' + err.status && err.message === failed(err.status)) return i18n.t('Request failed ({{status}})', { ns: 'errors', status: err.status });
  if (inEnglish()) return err.message;
  return words?.serverText(err) ?? err.message;
}

// fieldProblemText says what is wrong with one field of a form (an
// ApiError's problems[column]) in the operator's language, without the
// field's label (the form shows it beside); fallback is the server's
// English (fields[column]), which English shows, as does a language
// without words for the problem.
export function fieldProblemText(problem: FieldProblem | undefined, fallback: string): string {
  if (!problem || inEnglish()) return fallback;
  return words?.problemWords(problem) ?? fallback;
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

// transport sends every request of the typed client: it reads the answer
// with parseJSON, turns a refusal into an
// ApiError (the error body of docs/api.md), and sends a request refused
// because the session ended once more after the operator signs in again.
// A success is handed on as a Response whose json() is the answer read.
async function transport(request: Request): Promise<Response> {
  // The request is sent from its parts, its body as text: the browser
  // then knows the bytes it sends (a Request's own body would go as a
  // stream), and a second sending after a sign-in sends the same.
  let body = request.body === null ? undefined : await request.text();
  const headers = new Headers(request.headers);
  if (request.method === 'POST' && body === undefined) {
    // A POST always carries a JSON object, {} when it says nothing: the
    // endpoints that take one decode it.
    body = '{}';
    headers.set('Content-Type', 'application/json');
  }
  const init: RequestInit = { method: request.method, headers, body, signal: request.signal, credentials: 'same-origin' };
  return sendOnce(request.url, init, false);
}

async function sendOnce(url: string, init: RequestInit, retried: boolean): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (err) {
    // An abort is the caller's (a search overtaken by the next): not an
    // unreachable server.
    if (init.signal?.aborted) throw err;
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
    const e = (data ?? {}) as { error?: unknown; code?: unknown; fields?: unknown; problems?: unknown; params?: unknown; retryAfterSec?: unknown; row?: unknown };
    const message = typeof e.error === 'string' && e.error !== '' ? e.error : failed(res.status);
    const fields = e.fields && typeof e.fields === 'object' ? Object.fromEntries(Object.entries(e.fields).filter((kv): kv is [string, string] => typeof kv[1] === 'string')) : {};
    // The session check refuses before any handler runs: nothing was
    // done, so sending again once signed in is safe.
    const path = new URL(url, location.href).pathname.slice(new URL(API, location.href).pathname.length);
    if (res.status === 401 && e.code === 'unauthenticated' && !retried && reauth && !signInPath.test(path) && (await reauth(init.method ?? 'GET'))) {
      return sendOnce(url, init, true);
    }
    const row = e.row !== null && typeof e.row === 'object' && !Array.isArray(e.row) ? (e.row as Row) : undefined;
    const params: Params = isObject(e.params) ? { ...e.params } : {};
    if (typeof e.retryAfterSec === 'number' && params.retryAfterSec === undefined) params.retryAfterSec = e.retryAfterSec;
    const problems = isObject(e.problems)
      ? Object.fromEntries(
          Object.entries(e.problems)
            .filter((kv): kv is [string, { code: string; params?: unknown }] => isObject(kv[1]) && typeof kv[1].code === 'string')
            .map(([col, p]) => [col, { code: p.code, params: isObject(p.params) ? p.params : {} }]),
        )
      : {};
    throw new ApiError(res.status, typeof e.code === 'string' ? e.code : 'http_' + res.status, message, fields, row, res.headers.get('ETag') ?? '', params, problems);
  }
  const out = new Response(text === '' || res.status === 204 ? null : text, { status: res.status, statusText: res.statusText, headers: res.headers });
  // openapi-fetch reads a body with a length through json(): the answer
  // as parseJSON read it, integers past 2^53 exact.
  out.headers.set('Content-Length', String(text.length));
  Object.defineProperty(out, 'json', { value: () => Promise.resolve(data) });
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// client is the typed client of the API (openapi-fetch): paths, their
// parameters, bodies and answers are the OpenAPI document's. A refusal
// throws an ApiError, so an answer's data is always there: take it with
// dataOf, a row with its version with versioned, a list page with pageOf.
export const client = createClient<paths>({
  baseUrl: API,
  fetch: (r) => transport(r),
  bodySerializer: (body: unknown) => stringifyJSON(body),
  // Each parameter is one path segment, escaped as seg does (and never
  // read as a replacement pattern: an id may hold a $).
  pathSerializer: (path, params) => path.replace(/\{([^{}]+)\}/g, (m: string, name: string) => (params[name] === undefined ? m : seg(String(params[name])))),
  headers: { Accept: 'application/json' },
  credentials: 'same-origin',
});

// dataOf is the data of an answer of client.
export async function dataOf<T>(answer: Promise<{ data?: T; response: Response }>): Promise<T> {
  return (await answer).data as T;
}

// versioned is a row of an answer of client with its version (ETag).
export async function versioned(answer: Promise<{ data?: Row; response: Response }>): Promise<Versioned> {
  const a = await answer;
  return { row: a.data as Row, etag: a.response.headers.get('ETag') ?? '' };
}

// pageOf is a list answer of client with its headers' total and cursor.
export async function pageOf(answer: Promise<{ data?: Row[]; response: Response }>): Promise<ListPage> {
  const a = await answer;
  const rows = a.data ?? [];
  const h = a.response.headers;
  const total = Number(h.get('x-total-count') ?? rows.length);
  return {
    rows,
    total: Number.isFinite(total) ? total : rows.length,
    estimated: h.get('x-total-count-estimated') === 'true',
    next: h.get('x-next-cursor') ?? '',
  };
}

// query sends a list's filters, sort and window as they are: their names
// (column_op) are the catalog's, not the document's.
export const query = (params: URLSearchParams) => () => params.toString();

// rowParams are the path parameters of a row of resource.
export const rowParams = (resource: string, id: string) => ({ path: { resource, id } });

// writeHeaders say how a write is sent (WriteOptions): its If-Match, and the
// body as an RFC 7396 merge patch.
export function writeHeaders(opts: WriteOptions = {}): Record<string, string> {
  const h: Record<string, string> = {};
  if (opts.ifMatch) h['If-Match'] = opts.ifMatch;
  if (opts.merge) h['Content-Type'] = 'application/merge-patch+json';
  return h;
}

export interface ListPage {
  rows: Row[];
  total: number;
  estimated: boolean;
  /** X-Next-Cursor of a keyset page (_limit): empty on the last page. */
  next: string;
}

// seg escapes one path segment.
export const seg = encodeURIComponent;
