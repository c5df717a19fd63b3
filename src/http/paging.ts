// Every demo list pages the same way (D-39, src/views/page.ts): `limit` (1 to 1000, default 100)
// and an opaque `cursor`; a page that is not the last carries `Link: <next page>; rel="next"`,
// and the body stays the bare array of the spec.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IdKind } from '../domain/ids.ts';
import { errorBody } from '../views/errors.ts';
import { readPage } from '../views/page.ts';

/** The next page's URL: this request's path and query with the cursor replaced. */
function nextUrl(request: FastifyRequest, cursor: string): string {
  const [path, query = ''] = request.url.split('?', 2);
  const params = new URLSearchParams(query);
  params.set('cursor', cursor);
  return `${path}?${params.toString()}`;
}

/** Answers one page: `fetch` reads records after an id, `view` renders each. */
export async function sendPage<T>(
  request: FastifyRequest<{ Querystring: { limit?: number; cursor?: string } }>,
  reply: FastifyReply,
  kind: IdKind,
  fetch: (afterId: string | undefined, limit: number) => Promise<T[]>,
  view: (record: T) => unknown,
  idOf?: (record: T) => string,
) {
  const page = await readPage(kind, request.query, fetch, idOf);
  if (page.records === undefined) {
    return reply
      .code(400)
      .send(
        errorBody('INVALID_CURSOR', 'The cursor is not one this service issued: use the Link of the previous page.'),
      );
  }
  if (page.nextCursor !== undefined) reply.header('link', `<${nextUrl(request, page.nextCursor)}>; rel="next"`);
  return reply.send(page.records.map(view));
}
