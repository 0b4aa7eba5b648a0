import i18n from './i18n';

// JSON documents compared and patched as the server compares and patches
// them (docs/api.md, "Merge patches" and "History"): the edit form sends
// a JSON column as the RFC 7396 merge patch of what the operator changed,
// so the game's writes to the document's other keys survive the save, and
// shows what changed under the operator path by path. Values come from
// parseJSON: an integer past 2^53 is a BigInt, compared and kept exactly.

type Doc = Record<string, unknown>;

export const isDoc = (v: unknown): v is Doc => v !== null && typeof v === 'object' && !Array.isArray(v);

// has: an own key (a document's "__proto__" or "constructor" too).
const has = (d: Doc, k: string) => Object.prototype.hasOwnProperty.call(d, k);

// sameJSON: a and b are the same JSON value. An object's key order is no
// difference (PostgreSQL's jsonb keeps an order of its own), nor is the
// text's spacing, which parsing has left behind.
export function sameJSON(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJSON(x, b[i]));
  if (!isDoc(a) || !isDoc(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => has(b, k) && sameJSON(a[k], b[k]));
}

// MergePatch is a merge patch and whether it says the change exactly. A
// merge patch's null removes a key, so a key set to null (or a new object
// that holds one) cannot be said by one; nor can a patch past the bounds
// the server takes in one statement (32 objects deep; 500 objects and
// removed keys).
export interface MergePatch {
  patch: unknown;
  exact: boolean;
}

// mergePatch is the RFC 7396 merge patch that turns before into after
// (keys set or added, removed keys null, objects recursively, anything
// else, arrays included, whole), or undefined when they are the same.
export function mergePatch(before: unknown, after: unknown): MergePatch | undefined {
  const d = diff(before, after);
  return d && { patch: d.patch, exact: d.exact && fits(d.patch) };
}

function diff(before: unknown, after: unknown): MergePatch | undefined {
  if (sameJSON(before, after)) return undefined;
  if (!isDoc(after)) return { patch: after, exact: true };
  // Merged into {}: the server takes a stored value that is no object for one.
  if (!isDoc(before)) return { patch: after, exact: !holdsNull(after) };
  const patch: [string, unknown][] = [];
  let exact = true;
  for (const k of Object.keys(before)) if (!has(after, k)) patch.push([k, null]);
  for (const [k, v] of Object.entries(after)) {
    const d = diff(has(before, k) ? before[k] : undefined, v);
    if (!d) continue;
    patch.push([k, d.patch]);
    exact &&= d.exact && v !== null;
  }
  // fromEntries, not assignment: a key "__proto__" stays a key.
  return { patch: Object.fromEntries(patch), exact };
}

const holdsNull = (d: Doc): boolean => Object.values(d).some((v) => v === null || (isDoc(v) && holdsNull(v)));

// fits mirrors the server's bounds of a merge patch (rows.CheckMergePatch).
function fits(patch: unknown): boolean {
  let nodes = 0;
  const walk = (d: Doc, depth: number): boolean => {
    if (depth > 32) return false;
    for (const v of Object.values(d)) {
      if (isDoc(v) || v === null) nodes++;
      if (nodes > 500 || (isDoc(v) && !walk(v, depth + 1))) return false;
    }
    return true;
  };
  return !isDoc(patch) || walk(patch, 1);
}

// applyMergePatch is RFC 7396's MergePatch(target, patch).
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isDoc(patch)) return patch;
  const out = new Map(Object.entries(isDoc(target) ? target : {}));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) out.delete(k);
    else out.set(k, applyMergePatch(out.get(k), v));
  }
  return Object.fromEntries(out);
}

// PathChange is one leaf change of a document, as the server's history
// records it: the object keys and array indexes from the top, and the
// value there before and after, each absent where the place was not.
export interface PathChange {
  path: (string | number)[];
  before?: unknown;
  after?: unknown;
}

// jsonPaths lists the leaf changes from before to after as the server's
// history does: objects key by key, arrays of one length element by
// element, anything else (a longer array, another type) whole at its
// place; the path [] is the value whole. Keys in sorted order.
export function jsonPaths(before: unknown, after: unknown, at: (string | number)[] = []): PathChange[] {
  if (sameJSON(before, after)) return [];
  if (isDoc(before) && isDoc(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => jsonPaths(has(before, k) ? before[k] : undefined, has(after, k) ? after[k] : undefined, [...at, k]));
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    return before.flatMap((x, i) => jsonPaths(x, after[i], [...at, i]));
  }
  return [{ path: at, ...(before !== undefined && { before }), ...(after !== undefined && { after }) }];
}

// valueAt is the value at path in doc, undefined where there is none.
export function valueAt(doc: unknown, path: (string | number)[]): unknown {
  let v = doc;
  for (const k of path) {
    if (typeof k === 'number' ? !Array.isArray(v) : !isDoc(v) || !has(v, k)) return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

// applyPaths sets each change's place to its after, or takes the place
// out where it has none.
export function applyPaths(doc: unknown, changes: PathChange[]): unknown {
  return changes.reduce((d, c) => setAt(d, c.path, 'after' in c ? c.after : undefined), doc);
}

function setAt(doc: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [k, ...rest] = path as [string | number, ...(string | number)[]];
  if (typeof k === 'number') {
    const a = Array.isArray(doc) ? [...doc] : [];
    a[k] = setAt(a[k], rest, value);
    return a;
  }
  const m = new Map(Object.entries(isDoc(doc) ? doc : {}));
  if (rest.length === 0 && value === undefined) m.delete(k);
  else m.set(k, setAt(m.get(k), rest, value));
  return Object.fromEntries(m);
}

// rebaseJSON lays the operator's edit of a document (loaded → edited) over
// the document as it is now: their changes win where both changed, the
// rest is as now. Said as a merge patch, it is what the database would
// have made of their save (arrays whole); else place by place.
export function rebaseJSON(loaded: unknown, edited: unknown, now: unknown): unknown {
  const d = mergePatch(loaded, edited);
  if (!d) return now;
  return d.exact ? applyMergePatch(now, d.patch) : applyPaths(now, jsonPaths(loaded, edited));
}

// pathWords says a path as a person reads it: stats.gold, slots[3]; a key
// that is not a plain word is quoted (inventory."big sword"); [] is the
// whole value.
export function pathWords(path: (string | number)[]): string {
  if (path.length === 0) return i18n.t('(the whole value)', { ns: 'history' });
  return path
    .map((k, i) => (typeof k === 'number' ? `[${k}]` : (i > 0 ? '.' : '') + (/^[\p{L}\p{N}_$-]+$/u.test(k) ? k : JSON.stringify(k))))
    .join('');
}
