// One page of a demo list (D-39), whichever door asks: `limit` (default 100) records after the
// id an opaque cursor names, and the cursor of the next page when there is one. HTTP sends that
// cursor in a Link header, MCP tools in their result.

import { decodeCursor, encodeCursor } from '../domain/cursor.ts';
import type { ListKind } from '../domain/ids.ts';
import { DEFAULT_PAGE } from '../schemas/common.ts';

/** A page, or `undefined` records when the cursor is not one this service issued. */
export interface Page<T> {
  records?: T[];
  nextCursor?: string;
}

/**
 * Reads one page: `fetch` reads up to `limit` records after an id (one more than asked, to know
 * whether a next page exists).
 */
export async function readPage<T>(
  kind: ListKind,
  query: { limit?: number; cursor?: string },
  fetch: (afterId: string | undefined, limit: number) => Promise<T[]>,
  idOf: (record: T) => string = (record) => (record as { id: string }).id,
): Promise<Page<T>> {
  const { limit = DEFAULT_PAGE, cursor } = query;
  let afterId: string | undefined;
  if (cursor !== undefined) {
    afterId = decodeCursor(kind, cursor);
    if (afterId === undefined) return {};
  }
  const rows = await fetch(afterId, limit + 1);
  if (rows.length <= limit) return { records: rows };
  const records = rows.slice(0, limit);
  return { records, nextCursor: encodeCursor(idOf(records[records.length - 1])) };
}
