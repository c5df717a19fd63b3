// The Insights page's charts (D-73), drawn by Chart.js 4 on a canvas: bars of a figure table's
// columns (figure-table.tsx), a group of bars per row. Only the pieces a bar chart needs are
// imported and registered (the bar controller and element, the category and linear scales, the
// legend and the tooltip), so the bundle leaves the rest of the library out. The canvas is an
// image to a screen reader (`role="img"`), named by a sentence saying what it shows and where its
// figures are: the table beside it, which is read instead. Nothing is animated, so the chart is
// there as soon as it is drawn (and it never moves for a person who asked for less motion).
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Legend,
  LinearScale,
  Tooltip,
} from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';
import { type FigureTable, type Format, percentOf, shown } from './figure-table.tsx';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);
Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", sans-serif';
Chart.defaults.color = '#5b6475';

/** The console's colours (console.css): the accent, won, lost, and a quieter accent. */
export const COLOURS = { accent: '#2456c7', won: '#1f7a4d', lost: '#a33a2e', light: '#8fa9e6' } as const;

/** A series of bars: a column of the table, in a colour. */
export interface Series {
  column: number;
  colour: string;
}

const wholeDollars = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  notation: 'compact',
  maximumFractionDigits: 1,
});

/** A value on the axis: `$20K`, `50%`, `3.5`, `12`. */
function tick(value: number, format: Format): string {
  if (format === 'usd') return wholeDollars.format(value);
  if (format === 'share') return `${value}%`;
  return value.toLocaleString('en-US');
}

/** The figure a bar stands for: a share is charted in percent, the rest as it is. */
const barValue = (value: number | null, format: Format) =>
  value === null ? null : format === 'share' ? percentOf(value) : value;

function configOf(table: FigureTable, series: Series[]): ChartConfiguration<'bar', (number | null)[], string> {
  const format = table.columns[series[0].column].format;
  return {
    type: 'bar',
    data: {
      labels: table.rows.map((row) => row.head),
      datasets: series.map(({ column, colour }) => ({
        label: table.columns[column].label,
        data: table.rows.map((row) => barValue(row.values[column], format)),
        backgroundColor: colour,
        borderRadius: 3,
        maxBarThickness: 56,
      })),
    },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      scales: {
        x: { ticks: { autoSkip: false, maxRotation: 60 } },
        y: {
          beginAtZero: true,
          ...(format === 'share' ? { max: 100 } : {}),
          ticks: {
            ...(format === 'count' ? { precision: 0 } : {}),
            callback: (value) => tick(Number(value), format),
          },
        },
      },
      plugins: {
        legend: { display: series.length > 1, position: 'bottom' },
        tooltip: {
          callbacks: {
            label: (item) => {
              const row = table.rows[item.dataIndex];
              return `${item.dataset.label}: ${shown(row.values[series[item.datasetIndex].column], format)}`;
            },
          },
        },
      },
    },
  };
}

/** The sentence that names the chart: what its bars are, and where its figures are read. */
export function chartWords(title: string, table: FigureTable, series: Series[]): string {
  const bars = series.map((s) => table.columns[s.column].label.toLowerCase());
  const what = bars.length === 1 ? bars[0] : `${bars.slice(0, -1).join(', ')} and ${bars.at(-1)}`;
  return `${title}: a bar chart of ${what} by ${table.head.toLowerCase()}, ${table.rows.length} bars each. Its figures are in the table “${table.caption}”.`;
}

/** A bar chart of some of a table's columns; drawn again whenever its figures change. */
export function BarChart({ title, table, series }: { title: string; table: FigureTable; series: Series[] }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const figures = JSON.stringify([table, series]);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, configOf(table, series));
    return () => chart.destroy();
  }, [figures]);
  return (
    <div class="chart-box">
      <canvas ref={canvas} role="img" aria-label={chartWords(title, table, series)} />
    </div>
  );
}
