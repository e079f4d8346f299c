import type uPlot from 'uplot';

import { axisValue } from '@contracts/metric-catalogue';

import { ChartLine, colorIndex, maxColumn, minColumn, withAlpha } from './chart-data';

/** Colours read from the page's CSS variables, so charts follow the light or dark scheme. */
export interface ChartTheme {
  lines: string[];
  axis: string;
  grid: string;
}

const CHART_VARIABLES = 8;

/** Resolves the chart colours in the scheme `host` is shown in (custom properties holding light-dark() stay unresolved until used). */
export function readTheme(host: HTMLElement): ChartTheme {
  const probe = host.ownerDocument.createElement('span');
  host.appendChild(probe);
  const resolve = (value: string): string => {
    probe.style.color = value;
    return getComputedStyle(probe).color;
  };
  const theme = {
    lines: Array.from({ length: CHART_VARIABLES }, (_, i) => resolve(`var(--argus-chart-${i + 1})`)),
    axis: resolve('var(--mat-sys-on-surface-variant)'),
    grid: resolve('var(--mat-sys-outline-variant)'),
  };
  probe.remove();
  return theme;
}

export const lineColor = (theme: ChartTheme, line: number): string => theme.lines[line % theme.lines.length];

/** The CSS colour of a line's legend swatch (the same variable the canvas resolved). */
export const lineVariable = (line: number): string => `var(--argus-chart-${(line % CHART_VARIABLES) + 1})`;

const FONT = '12px system-ui, sans-serif';

function axisSize(_u: uPlot, values: string[] | null): number {
  // Ticks and gap take ~16 px; a 12 px digit is ~7.5 px wide.
  const longest = values ? Math.max(0, ...values.map((v) => v.length)) : 4;
  return Math.max(48, Math.ceil(longest * 7.5) + 24);
}

/**
 * uPlot options for `lines`: each line's average as a stroke, its min and max as invisible series
 * bounding a translucent band. Series of different units get their own scale; the first two units get
 * an axis (left, right); percentages run from 0 to at least 100.
 */
export function chartOptions(
  lines: readonly ChartLine[],
  theme: ChartTheme,
  size: { width: number; height: number },
  xRange: () => [number, number],
): uPlot.Options {
  const units = [...new Set(lines.map((line) => line.unit))];
  // the metric whose kind formats a unit's axis (lines of one unit are of one kind in the catalogue)
  const metricOf = (unit: string): string => lines.find((line) => line.unit === unit)?.metric ?? '';
  const scaleOf = (unit: string): string => `y${units.indexOf(unit)}`;

  const series: uPlot.Series[] = [{}];
  const bands: uPlot.Band[] = [];
  lines.forEach((line, i) => {
    const stroke = lineColor(theme, colorIndex(lines, i));
    const scale = scaleOf(line.unit);
    // a projection has two points far apart: joined across the gap, dashed, without a band
    const projection = line.continues === undefined ? {} : { dash: [6, 4], spanGaps: true };
    series.push(
      { label: line.label, scale, stroke, width: 1.5, points: { show: false }, ...projection },
      { label: `${line.label} min`, scale, stroke, width: 0, points: { show: false } },
      { label: `${line.label} max`, scale, stroke, width: 0, points: { show: false } },
    );
    if (line.continues === undefined)
      bands.push({ series: [maxColumn(i), minColumn(i)], fill: withAlpha(stroke, 0.18) });
  });

  const scales: uPlot.Scales = { x: { time: true, range: () => xRange() } };
  units.forEach((unit, i) => {
    scales[`y${i}`] = unit === '%' ? { range: (_u, _min, max) => [0, Math.max(100, max ?? 0)] } : {};
  });

  const grid = { stroke: theme.grid, width: 1 };
  const axes: uPlot.Axis[] = [{ stroke: theme.axis, font: FONT, grid, ticks: grid }];
  units.slice(0, 2).forEach((unit, i) => {
    axes.push({
      scale: `y${i}`,
      side: i === 0 ? 3 : 1,
      stroke: theme.axis,
      font: FONT,
      grid: { ...grid, show: i === 0 },
      ticks: grid,
      size: axisSize,
      values: (_u, splits) => splits.map((v) => axisValue(metricOf(unit), v)),
    });
  });

  return {
    ...size,
    ms: 1,
    series,
    bands,
    scales,
    axes,
    legend: { show: false },
    // Hover points only on the averages; the band edges have none.
    cursor: { y: false, points: { size: (_u, si) => ((si - 1) % 3 === 0 ? 7 : 0) } },
  };
}
