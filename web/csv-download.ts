// The console's CSV downloads (D-74). A list's CSV is the service's own: its route asked with
// `Accept: text/csv` (the same filters, every page, only what the session may see), fetched with
// the session's cookie like every other call (api.ts), a 401 ending the session as it does there.
// A chart's table is written in the page (csv.ts). Either is saved as a file (a link with
// `download` on a blob), never opened in a tab.
import { csvList } from './api.ts';
import { errorWords } from './error-words.ts';

/** A file's name of today's date (UTC): `deals-2026-11-28.csv`. */
export const csvName = (what: string): string => `${what}-${new Date().toISOString().slice(0, 10)}.csv`;

/** Saves a blob among the browser's downloads as `filename`. */
export function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has read the blob long before this.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Saves CSV text written here (a chart's table). */
export const saveCsv = (text: string, filename: string): void =>
  saveFile(new Blob([text], { type: 'text/csv;charset=utf-8' }), filename);

export type ListQuery = Record<string, string | number | boolean | undefined>;

/**
 * Saves a list as the service answers it in CSV (api.ts's csvList): `path` in the contract's form
 * (`/pipeline/deals`), the query's empty values left out. Answers undefined once saved, or the
 * words of what went wrong.
 */
export async function downloadList(path: string, query: ListQuery, filename: string): Promise<string | undefined> {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') search.set(name, String(value));
  }
  try {
    const answer = await csvList(path, search);
    if (!answer.ok) return errorWords(answer.error);
    saveFile(answer.data, filename);
    return undefined;
  } catch {
    return 'Cannot reach the service: try again.';
  }
}
