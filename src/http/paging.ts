// Every demo list pages the same way (D-39): `limit` (1 to 1000, default 100) and an opaque
// `cursor`; a page that is not the last carries `Link: <next page>; rel="next"`, and the body
// stays the bare array of the spec.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IdKind } from '../domain/ids.ts';
import { DEFAULT_PAGE } from '../schemas/common.ts';
import { decodeCursor, encodeCursor } from '../views/cursor.ts';
import { errorBody } from '../views/errors.ts';

/** The next page's URL: this request's path and query with the cursor replaced. */
function nextUrl(request: FastifyRequest, cursor: string): string {
  const [path, query = ''] = request.url.split('?', 2);
  const params = new URLSearchParams(query);
  params.set('cursor', cursor);
  return `${path}?${params.toString()}`;
}

/**
 * Answers one page: `fetch` reads up to `limit` records after an id (one more than asked, to
 * know whether a next page exists), `view` renders each.
 */
export async function sendPage<T>(
  request: FastifyRequest<{ Querystring: { limit?: number; cursor?: string } }>,
  reply: FastifyReply,
  kind: IdKind,
  fetch: (afterId: string | undefined, limit: number) => Promise<T[]>,
  view: (record: T) => unknown,
  idOf: (record: T) => string = (record) => (record as { id: string }).id,
) {
  const { limit = DEFAULT_PAGE, cursor } = request.query;
  let afterId: string | undefined;
  if (cursor !== undefined) {
    afterId = decodeCursor(kind, cursor);
    if (afterId === undefined) {
      return reply
        .code(400)
        .send(
          errorBody('INVALID_CURSOR', 'The cursor is not one this service issued: use the Link of the previous page.'),
        );
    }
  }
  const rows = await fetch(afterId, limit + 1);
  const page = rows.length > limit ? rows.slice(0, limit) : rows;
  if (rows.length > limit)
    reply.header('link', `<${nextUrl(request, encodeCursor(idOf(page[page.length - 1])))}>; rel="next"`);
  return reply.send(page.map(view));
}
