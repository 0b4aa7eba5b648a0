import { useResourceMeta } from './queries';

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
