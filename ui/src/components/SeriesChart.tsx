import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { SeriesData } from '../api';
import { formatDay, formatTime } from '../time';

// Line colours that read on both themes.
const palette = ['#3b82f6', '#f59f00', '#12b886', '#e64980', '#7950f2', '#868e96'];

// SeriesChart draws a series widget with uPlot, sized to its container
// and redrawn when it resizes; the theme's text and grid colours come
// from the page's CSS variables. Loaded lazily: only the dashboard needs it.
// Its legend says the hovered step's time and values, and the latest
// step's when nothing is hovered (uPlot's own says "Time: --").
export default function SeriesChart({ data, label }: { data: SeriesData; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const css = getComputedStyle(document.documentElement);
    const text = css.getPropertyValue('--muted').trim() || '#5f6b7a';
    const grid = css.getPropertyValue('--line').trim() || '#dfe3e8';
    const xs = (data.series[0]?.points ?? []).map((p) => Date.parse(p.t) / 1000);
    const ys = data.series.map((s) => s.points.map((p) => p.v));
    const last = xs.length - 1;
    const say = (t: number | null | undefined) => (t == null ? '—' : data.step >= 86_400 ? formatDay(t * 1000) : formatTime(t * 1000));
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const opts: uPlot.Options = {
      width: Math.max(el.clientWidth, 200),
      height: 180,
      legend: { show: data.series.length > 1 },
      cursor: { drag: { x: false, y: false } },
      scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [axis, { ...axis, size: 44 }],
      series: [
        { label: 'When', value: (_u, v, _s, idx) => say(idx == null ? xs[last] : v) },
        ...data.series.map((s, i) => ({
          label: s.name, stroke: palette[i % palette.length], width: 2, points: { show: false },
          value: (_u: uPlot, v: number | null, si: number, idx: number | null) => (idx == null ? ys[si - 1]?.[last] : v)?.toLocaleString() ?? '—',
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
  }, [data, label]);
  return <div ref={box} className="series-chart" />;
}
