// A chart's figures as one model (D-73), from which the Insights page draws the HTML table beside
// the chart (what a screen reader reads), the chart's bars (insight-charts.tsx) and the CSV
// download, so the three never disagree. In the table a figure reads as people read it: money in
// USD with 2 decimals, a share as a percentage, days with 2 decimals, a count with its thousands
// separated, and a figure over nothing (null) as "—". In the CSV a figure is a plain number (a
// share in percent, the column's head saying so) and a null is empty.
import { usd } from './api.ts';
import { csvOf } from './csv.ts';
import { percent } from './words.ts';

/** How a column's figures read: a count, USD, a share (a fraction 0 to 1) or days. */
export type Format = 'count' | 'usd' | 'share' | 'days';

export interface Column {
  label: string;
  format: Format;
}

export interface FigureRow {
  /** The row's head as the table shows it (a stage, a month, an executor). */
  head: string;
  /** The row's head in the CSV, when it differs (a month as `2026-12`). */
  csvHead?: string;
  /** A figure per column; null: a figure over nothing. */
  values: (number | null)[];
}

export interface FigureTable {
  /** The table's caption: its accessible name. */
  caption: string;
  /** The head of the rows' column (`Stage`). */
  head: string;
  columns: Column[];
  rows: FigureRow[];
}

/** What a figure over nothing reads as. */
export const NONE = '—';

const twoDecimals = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A figure as the table shows it. */
export function shown(value: number | null, format: Format): string {
  if (value === null) return NONE;
  if (format === 'usd') return usd(value);
  if (format === 'share') return percent(value);
  if (format === 'days') return twoDecimals.format(value);
  return value.toLocaleString('en-US');
}

/** A share as a number of percent, to 2 decimals: 0.6667 → 66.67. */
export const percentOf = (share: number): number => Math.round(share * 10_000) / 100;

/** The unit a CSV column's head names. */
const CSV_UNIT: Record<Format, string> = { count: '', usd: ' (USD)', share: ' (%)', days: '' };

/** The table as RFC 4180 CSV: a header row of its heads, a row per row, plain numbers. */
export function tableCsv(table: FigureTable): string {
  const header = [table.head, ...table.columns.map((column) => column.label + CSV_UNIT[column.format])];
  const rows = table.rows.map((row) => [
    row.csvHead ?? row.head,
    ...row.values.map((value, i) =>
      value === null ? null : table.columns[i].format === 'share' ? percentOf(value) : value,
    ),
  ]);
  return csvOf([header, ...rows]);
}

/** The table, in a box that scrolls sideways on its own when it is wider than the page. */
export function FigureTableView({ table }: { table: FigureTable }) {
  return (
    <div class="table-scroll figure-table">
      <table>
        <caption>{table.caption}</caption>
        <thead>
          <tr>
            <th scope="col">{table.head}</th>
            {table.columns.map((column) => (
              <th scope="col" class="figure" key={column.label}>
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row) => (
            <tr key={row.head}>
              <th scope="row">{row.head}</th>
              {row.values.map((value, i) => (
                <td class="figure" key={table.columns[i].label}>
                  {shown(value, table.columns[i].format)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
