import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useTranslation } from 'react-i18next';
import type { SeriesData } from '../api';
import { formatNumber } from '../i18n';
import { formatDay, formatTime } from '../time';

// Line colours that read on both themes.
const palette = ['#3b82f6', '#f59f00', '#12b886', '#e64980', '#7950f2', '#868e96'];

// SeriesChart draws a series widget with uPlot, sized to its container
// and redrawn when it resizes; the theme's text and grid colours come
// from the page's CSS variables. Loaded lazily: only the dashboard needs it.
// Its legend says the hovered step's time and values, and the latest
// step with data when nothing is hovered (uPlot's own says "Time: --"). Dates
// and numbers are said in the operator's language, and the chart is
// drawn again when it changes.
export default function SeriesChart({ data, label }: { data: SeriesData; label: string }) {
  const { t, i18n } = useTranslation('dashboard');
  const lng = i18n.language;
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const css = getComputedStyle(document.documentElement);
    const text = css.getPropertyValue('--muted').trim() || '#5f6b7a';
    const grid = css.getPropertyValue('--line').trim() || '#dfe3e8';
    const xs = (data.series[0]?.points ?? []).map((p) => Date.parse(p.t) / 1000);
    const ys = data.series.map((s) => s.points.map((p) => p.v));
    // The step the legend says at rest: the latest with data. The last
    // step is the one under way, often still empty ("—" or 0 for every
    // line), which would say nothing.
    const hasData = (i: number) => ys.some((y) => y[i] != null && y[i] !== 0);
    let last = xs.length - 1;
    for (let i = last; i >= 0; i--) {
      if (hasData(i)) {
        last = i;
        break;
      }
    }
    const say = (at: number | null | undefined) => (at == null ? '—' : data.step >= 86_400 ? formatDay(at * 1000) : formatTime(at * 1000));
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const opts: uPlot.Options = {
      width: Math.max(el.clientWidth, 200),
      height: 180,
      legend: { show: data.series.length > 1 },
      cursor: { drag: { x: false, y: false } },
      scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [{ ...axis, space: 60, values: timeTicks(lng) }, { ...axis, size: 44, values: (_u, splits) => splits.map((v) => formatNumber(v)) }],
      series: [
        { label: t('When'), value: (_u, v, _s, idx) => say(idx == null ? xs[last] : v) },
        ...data.series.map((s, i) => ({
          label: s.name, stroke: palette[i % palette.length], width: 2, points: { show: false },
          value: (_u: uPlot, v: number | null, si: number, idx: number | null) => {
            const n = idx == null ? ys[si - 1]?.[last] : v;
            return n == null ? '—' : formatNumber(n);
          },
        })),
      ],
    };
    const plot = new uPlot(opts, [xs, ...ys], el);
    plot.root.setAttribute('aria-hidden', 'true'); // the table beside it is what a screen reader reads
    const ro = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 200), height: 180 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [data, label, lng, t]);
  return <div ref={box} className="series-chart" />;
}

// timeTicks says the time axis's ticks (epoch seconds) in language lng:
// days as "1 Dec" where a tick is a day or more apart, else times of day,
// the day beneath the first tick and each tick on a new day. Ticks are
// spaced for "6:00 PM", wider than uPlot's own "6pm".
function timeTicks(lng: string) {
  const day = new Intl.DateTimeFormat(lng, { day: 'numeric', month: 'short' });
  const time = new Intl.DateTimeFormat(lng, { hour: 'numeric', minute: '2-digit' });
  return (_u: uPlot, splits: number[], _axis: number, _space: number, incr: number) => {
    let last = '';
    return splits.map((s) => {
      const d = new Date(s * 1000);
      const date = day.format(d);
      if (incr >= 86_400) return date;
      const first = date !== last;
      last = date;
      return first ? `${time.format(d)}\n${date}` : time.format(d);
    });
  };
}
