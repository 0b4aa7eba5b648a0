import { useTranslation } from 'react-i18next';
import { intlLocale as locale } from './i18n';

// One way to say an instant everywhere: in the operator's language and
// time zone, "4 Dec 2026, 06:20" (the language's medium date and short
// time, as Intl says them); the exact instant in UTC on hover.

// One formatter per locale and style, made on first use: the language
// can change while the panel runs.
const styles = {
  when: { dateStyle: 'medium', timeStyle: 'short' },
  day: { dateStyle: 'medium' },
} as const satisfies Record<string, Intl.DateTimeFormatOptions>;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(style: keyof typeof styles): Intl.DateTimeFormat {
  const tag = locale();
  const key = `${tag} ${style}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(tag, styles[style]);
    formatters.set(key, f);
  }
  return f;
}

function parse(v: unknown): Date | undefined {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? undefined : v;
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  if (v === '') return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

// formatTime says an instant (ISO 8601 text, epoch milliseconds or a
// Date) in the operator's language and zone; text that is no instant is
// shown as it is.
export function formatTime(v: unknown): string {
  const d = parse(v);
  return d ? formatter('when').format(d) : String(v ?? '');
}

// formatDay says the day of an instant, for what counts by day.
export function formatDay(v: unknown): string {
  const d = parse(v);
  return d ? formatter('day').format(d) : String(v ?? '');
}

// utcTime is the exact instant in UTC: "2026-12-04 06:20:19 UTC" (with
// milliseconds when it has any), for a title.
export function utcTime(v: unknown): string {
  const d = parse(v);
  if (!d) return '';
  return d.toISOString().replace('T', ' ').replace('.000Z', 'Z').replace('Z', ' UTC');
}

// Time is an instant as formatTime says it, the exact UTC time on hover.
// It follows the language: useTranslation renders it again on a change.
export function Time({ value, className }: { value: unknown; className?: string }) {
  useTranslation();
  return (
    <time dateTime={parse(value)?.toISOString()} title={utcTime(value) || undefined} className={className}>
      {formatTime(value)}
    </time>
  );
}
