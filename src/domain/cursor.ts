// Page cursors (D-30, D-39) are opaque to clients: the base64url of the last id of a page. Only
// a cursor this service could have issued is accepted: it must decode to an id of the listed
// kind and encode back to itself.
import { couldBeId, type ListKind } from '../domain/ids.ts';

export function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

/** The id a cursor stands for, or undefined when no page of this kind could have issued it. */
export function decodeCursor(kind: ListKind, cursor: string): string | undefined {
  if (cursor.length > 64) return undefined;
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  return encodeCursor(id) === cursor && couldBeId(kind, id) ? id : undefined;
}
