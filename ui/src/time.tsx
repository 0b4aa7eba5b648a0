// One way to say an instant everywhere: in the operator's locale and
// time zone, "4 Dec 2026, 06:20" (the locale's medium date and short
// time); the exact instant in UTC on hover.

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const day = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

function parse(v: unknown): Date | undefined {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? undefined : v;
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  if (v === '') return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

// formatTime says an instant (ISO 8601 text, epoch milliseconds or a
// Date) in the operator's locale and zone; text that is no instant is
// shown as it is.
export function formatTime(v: unknown): string {
  const d = parse(v);
  return d ? when.format(d) : String(v ?? '');
}

// formatDay says the day of an instant, for what counts by day.
export function formatDay(v: unknown): string {
  const d = parse(v);
  return d ? day.format(d) : String(v ?? '');
}

// utcTime is the exact instant in UTC: "2026-12-04 06:20:19 UTC" (with
// milliseconds when it has any), for a title.
export function utcTime(v: unknown): string {
  const d = parse(v);
  if (!d) return '';
  return d.toISOString().replace('T', ' ').replace('.000Z', 'Z').replace('Z', ' UTC');
}

// Time is an instant as formatTime says it, the exact UTC time on hover.
export function Time({ value, className }: { value: unknown; className?: string }) {
  return (
    <time dateTime={parse(value)?.toISOString()} title={utcTime(value) || undefined} className={className}>
      {formatTime(value)}
    </time>
  );
}
