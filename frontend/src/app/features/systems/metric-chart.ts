import {
  afterRenderEffect,
  ChangeDetectionStrategy,
  Component,
  computed,
  DestroyRef,
  effect,
  ElementRef,
  inject,
  input,
  signal,
  untracked,
  viewChild,
  ViewEncapsulation,
} from '@angular/core';
import uPlot from 'uplot';

import { ThemeService } from '@console/core/theme';
import { absoluteTime } from '@console/ui/time-ago';
import { alignLines, avgColumn, ChartLine, colorIndex, lastValue, lineValue, maxColumn, minColumn } from './chart-data';
import { chartOptions, lineVariable, readTheme } from './chart-options';

interface LegendItem {
  key: string;
  label: string;
  color: string;
  value: string;
  hidden: boolean;
}

/**
 * One uPlot chart: a line per series (its average) over a min–max band, a legend that names the
 * instances, shows the value under the pointer (else the newest) and switches lines off and on.
 * Follows its container's width and the light/dark scheme.
 */
@Component({
  selector: 'argus-metric-chart',
  changeDetection: ChangeDetectionStrategy.OnPush,
  // uPlot builds its own DOM, which emulated encapsulation would not reach: the styles are scoped by hand.
  encapsulation: ViewEncapsulation.None,
  template: `
    <div #plot class="metric-chart__plot" role="img" [attr.aria-label]="label()"></div>
    <ul class="metric-chart__legend" [attr.aria-label]="'Series of ' + label()">
      @for (item of legend(); track item.key) {
        <li>
          <button
            type="button"
            class="metric-chart__item"
            [class.metric-chart__item--off]="item.hidden"
            [attr.aria-pressed]="!item.hidden"
            (click)="toggle(item.key)"
          >
            <span class="metric-chart__swatch" [style.background]="item.color"></span>
            <span class="metric-chart__label">{{ item.label }}</span>
            <span class="metric-chart__value">{{ item.value }}</span>
          </button>
        </li>
      }
    </ul>
    <p class="metric-chart__at" aria-live="off">{{ at() }}</p>
  `,
  styleUrl: './metric-chart.scss',
})
export class MetricChart {
  readonly lines = input.required<readonly ChartLine[]>();
  /** The window shown, epoch ms: charts of one page line up even where data is missing. */
  readonly from = input.required<number>();
  readonly to = input.required<number>();
  /** What the chart shows, for screen readers ("CPU over the last 24 h"). */
  readonly label = input('Chart');
  readonly height = input(200);

  private readonly plot = viewChild.required<ElementRef<HTMLElement>>('plot');
  private chart: uPlot | null = null;
  /** The keys of the lines the current chart was built for; other lines need a new chart. */
  private shape = '';
  private readonly schemeChanged = signal(0);
  private readonly theme = inject(ThemeService);

  protected readonly data = computed(() => alignLines(this.lines()));
  private readonly cursor = signal<number | null>(null);
  private readonly hidden = signal<ReadonlySet<string>>(new Set());

  protected readonly legend = computed<LegendItem[]>(() => {
    const data = this.data();
    const idx = this.cursor();
    const hidden = this.hidden();
    const lines = this.lines();
    return lines.map((line, i) => {
      const column = data[avgColumn(i)] as (number | null)[];
      return {
        key: line.key,
        label: line.label,
        color: lineVariable(colorIndex(lines, i)),
        value: lineValue(line, idx === null ? lastValue(column) : column[idx]),
        hidden: hidden.has(line.key),
      };
    });
  });

  /** The time under the pointer, else the newest bucket's. */
  protected readonly at = computed(() => {
    const xs = this.data()[0];
    const idx = this.cursor() ?? xs.length - 1;
    const x = xs[idx];
    return x === undefined ? 'No data in this range' : `Values at ${absoluteTime(new Date(x).toISOString())}`;
  });

  constructor() {
    afterRenderEffect(() => {
      this.schemeChanged();
      // The x range is read by uPlot on every redraw; reading it here redraws when only the window moved.
      this.from();
      this.to();
      this.draw(this.lines(), this.data());
    });

    const resize = new ResizeObserver(([entry]) => {
      const width = Math.floor(entry.contentRect.width);
      if (this.chart && width > 0 && width !== this.chart.width) {
        this.chart.setSize({ width, height: this.height() });
      }
    });
    // light or dark (the system's or the user's choice): the colours are read again on a rebuild
    effect(() => {
      this.theme.dark();
      this.shape = '';
      this.schemeChanged.update((n) => n + 1);
    });
    afterRenderEffect(() => resize.observe(this.plot().nativeElement));

    inject(DestroyRef).onDestroy(() => {
      resize.disconnect();
      this.chart?.destroy();
      this.chart = null;
    });
  }

  protected toggle(key: string): void {
    const hidden = new Set(this.hidden());
    if (!hidden.delete(key)) hidden.add(key);
    this.hidden.set(hidden);
    const line = this.lines().findIndex((l) => l.key === key);
    if (line >= 0) this.applyVisibility(line, !hidden.has(key));
  }

  /** Updates the data in place when the lines are the same ones, else builds the chart anew. */
  private draw(lines: readonly ChartLine[], data: uPlot.AlignedData): void {
    const shape = lines.map((line) => `${line.key}:${line.unit}:${line.continues ?? ''}`).join('\n');
    if (this.chart && shape === this.shape) {
      this.chart.setData(data);
      return;
    }
    this.chart?.destroy();
    const host = this.plot().nativeElement;
    const size = { width: Math.max(host.clientWidth, 200), height: this.height() };
    const options = chartOptions(lines, readTheme(host), size, () => [this.from(), this.to()]);
    options.hooks = { setCursor: [(u) => this.cursor.set(u.cursor.idx ?? null)] };
    this.chart = new uPlot(options, data, host);
    this.shape = shape;
    const hidden = untracked(this.hidden);
    lines.forEach((line, i) => {
      if (hidden.has(line.key)) this.applyVisibility(i, false);
    });
  }

  private applyVisibility(line: number, show: boolean): void {
    for (const column of [avgColumn(line), minColumn(line), maxColumn(line)]) this.chart?.setSeries(column, { show });
  }
}
