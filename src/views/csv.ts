// D-74: a list as RFC 4180 CSV (csv-stringify): a header row of the list's columns, then a row
// per record, each column a dotted path into the record's JSON view; a value that is an object
// or a list is its JSON, an absent one empty. Lines end in CRLF, and a field with a comma, a
// quote or a line break is quoted (its quotes doubled).
import { stringify } from 'csv-stringify/sync';

export const CSV_TYPE = 'text/csv; charset=utf-8; header=present';

/** The view's value at a dotted path (`account.name`), as a CSV field. */
function field(view: unknown, path: string): string {
  let value: unknown = view;
  for (const part of path.split('.')) value = (value as Record<string, unknown> | undefined)?.[part];
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

// csv-stringify quotes a field holding its record delimiter (CRLF) but not a bare line feed or
// carriage return: RFC 4180 asks for both quoted, or a reader splits the record there.
const OPTIONS = { record_delimiter: 'windows', quoted_match: /[\r\n]/ } as const;

export const csvHeader = (columns: readonly string[]): string => stringify([columns as string[]], OPTIONS);

export const csvRows = (columns: readonly string[], views: readonly unknown[]): string =>
  views.length === 0
    ? ''
    : stringify(
        views.map((view) => columns.map((column) => field(view, column))),
        OPTIONS,
      );
