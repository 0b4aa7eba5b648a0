import { useResourceMeta } from './queries';
import type { PathChange } from './jsonDiff';

// The audit log in words: each action's label as the server serves it
// (the adminAudit catalog entry's auditActions, package audit's one list)
// and a sentence for the entries whose payload is a report (an erase, a
// data export).

// useActionLabel is a function saying an action as the server labels it;
// a game's own action (Audit().Record), or one an operator who may not
// read the audit log meets, is shown as recorded.
export function useActionLabel(): (action: unknown) => string {
  const labels = useResourceMeta('adminAudit')?.auditActions;
  return (action) => actionLabel(labels, action);
}

export function actionLabel(labels: Record<string, string> | undefined, action: unknown): string {
  const a = String(action ?? '');
  return labels?.[a] ?? a;
}

// The audit chart sums the actions past its busiest five as "other".
export const otherLine = 'other';

const plural = (n: number, one: string, many = one + 's') => `${n.toLocaleString()} ${n === 1 ? one : many}`;

type ErasePart = { relation?: string; label?: string; rule?: string; rows?: number };

// ruleDone says what an erase rule did to rows.
const ruleDone: Record<string, string> = {
  delete: 'deleted',
  unlink: 'unlinked',
  anonymize: 'anonymized',
  keep: 'kept',
};

// auditSentence says an erase's or a data export's report as a sentence
// with its counts ("3 rows deleted, 2 unlinked, 14 audit entries
// redacted"; "5 resources, 120 rows"), without the action's label; none
// for other entries.
export function auditSentence(action: unknown, payload: unknown): string | undefined {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return undefined;
  const p = payload as Record<string, unknown>;
  if (action === 'user.erase') {
    const byRule = new Map<string, number>();
    for (const part of Array.isArray(p.resources) ? (p.resources as ErasePart[]) : []) {
      const rule = String(part.rule ?? 'keep');
      byRule.set(rule, (byRule.get(rule) ?? 0) + Number(part.rows ?? 0));
    }
    const said = [...byRule].filter(([, n]) => n > 0).map(([rule, n], i) => `${i === 0 ? plural(n, 'row') : n.toLocaleString()} ${ruleDone[rule] ?? rule}`);
    if (said.length === 0) said.push('no rows of theirs');
    said.push(`${plural(Number(p.auditEntries ?? 0), 'audit entry', 'audit entries')} redacted`);
    return said.join(', ');
  }
  if (action === 'user.export' && p.counts && typeof p.counts === 'object') {
    const counts = Object.entries(p.counts as Record<string, unknown>);
    const rows = counts.filter(([k]) => k !== 'audit' && k !== 'reports');
    const total = rows.reduce((n, [, v]) => n + Number(v ?? 0), 0);
    const audit = counts.find(([k]) => k === 'audit');
    const reports = counts.find(([k]) => k === 'reports');
    return [
      plural(rows.length, 'resource'),
      plural(total, 'row'),
      ...(reports ? [plural(Number(reports[1] ?? 0), 'report')] : []),
      ...(audit ? [plural(Number(audit[1] ?? 0), 'audit entry', 'audit entries')] : []),
    ].join(', ');
  }
  return undefined;
}

// erasePartWords is one resource of an erase's report: "Chat log: 3 rows
// deleted".
export function erasePartWords(part: ErasePart): string {
  const n = Number(part.rows ?? 0);
  return `${part.label ?? part.relation ?? ''}: ${plural(n, 'row')} ${ruleDone[String(part.rule)] ?? String(part.rule ?? '')}`;
}

// ColumnChange is one column's change in an update's audit entry
// (docs/api.md, "History"): its value before and after (either absent
// where there was none); a JSON document's leaf changes, place by place;
// or, where the entry could not keep it, only how large it was.
export type ColumnChange =
  | { kind: 'value'; before?: unknown; after?: unknown }
  | { kind: 'paths'; paths: PathChange[] }
  | { kind: 'truncated'; bytes: number };

const isPathChange = (v: unknown): v is PathChange =>
  v !== null && typeof v === 'object' && Array.isArray((v as { path?: unknown }).path);

// columnChange reads v as one column's change, or undefined when it is none.
export function columnChange(v: unknown): ColumnChange | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1 && Array.isArray(o.paths)) return { kind: 'paths', paths: o.paths.filter(isPathChange) };
  if (o.truncated === true && keys.every((k) => k === 'truncated' || k === 'bytes')) return { kind: 'truncated', bytes: Number(o.bytes ?? 0) };
  if (keys.length > 0 && keys.every((k) => k === 'before' || k === 'after')) return { kind: 'value', ...o };
  return undefined;
}

// columnChanges reads an entry's changes ({column: change}), or undefined
// when they are not that (a game's own payload, or changes an older entry
// cut whole: "[truncated: N bytes]").
export function columnChanges(v: unknown): [string, ColumnChange][] | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const out: [string, ColumnChange][] = [];
  for (const [k, c] of Object.entries(v)) {
    const change = columnChange(c);
    if (!change) return undefined;
    out.push([k, change]);
  }
  return out;
}

// tooLargeWords says a change the entry could not record: "too large to
// record (412,000 bytes)". changes cut whole by an older entry are the
// text "[truncated: N bytes]".
export function tooLargeWords(bytes: number | string): string {
  const m = typeof bytes === 'string' ? /^\[truncated: (\d+) bytes\]$/.exec(bytes) : null;
  const n = typeof bytes === 'number' ? bytes : m ? Number(m[1]) : NaN;
  return Number.isFinite(n) ? `too large to record (${n.toLocaleString()} bytes)` : 'too large to record';
}
