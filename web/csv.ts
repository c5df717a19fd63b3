// CSV as RFC 4180 writes it (D-74), for the tables the console makes itself (an insight's): a
// header row first, every line ending in CRLF, and a field with a comma, a quote or a line break
// quoted, its quotes doubled, as the service writes its lists. It imports nothing, so a unit test
// reads it in Node (test/views/console-csv.test.ts) beside the service's own writer.

export type Field = string | number | null | undefined;

/** One field; null and undefined are empty. */
export function csvField(value: Field): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Rows as CSV, the header row first. */
export const csvOf = (rows: readonly (readonly Field[])[]): string =>
  rows.map((row) => `${row.map(csvField).join(',')}\r\n`).join('');
