// D-74: a list asked for with `Accept: text/csv` answers RFC 4180 CSV: a header row, then every
// page from the one asked (the same filters, the same visibility), streamed a page at a time of
// the largest size, so that an export of any length holds one page in memory.
import { Readable } from 'node:stream';
import accepts from 'accepts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../domain/access.ts';
import type { PageOperation, ReadOperation } from '../operations/operation.ts';
import { readListPage } from '../operations/run.ts';
import { MAX_PAGE } from '../schemas/common.ts';
import type { PipelineService } from '../service/pipeline-service.ts';
import { CSV_TYPE, csvHeader, csvRows } from '../views/csv.ts';

/** Whether the request prefers CSV to JSON (JSON when it says nothing, or `*\/*`). */
export function wantsCsv(request: FastifyRequest, op: { csv?: unknown }): boolean {
  return op.csv !== undefined && accepts(request.raw).type(['application/json', 'text/csv']) === 'text/csv';
}

/** A read's list (a closer's payouts) as CSV: the rows its answer holds. */
export function sendCsvOf(reply: FastifyReply, op: ReadOperation, view: unknown) {
  const { columns, rows } = op.csv as NonNullable<ReadOperation['csv']>;
  return reply.type(CSV_TYPE).send(csvHeader(columns) + csvRows(columns, rows(view)));
}

type Query = { limit?: number; cursor?: string } & Record<string, unknown>;

/**
 * The first page is read before anything is sent (an unknown cursor or record is still a JSON
 * error); the next pages as the client reads.
 */
export async function csvPages(
  service: PipelineService,
  op: PageOperation,
  query: Query,
  caller: Caller | undefined,
  id: string | undefined,
) {
  const read = (cursor: string | undefined) =>
    readListPage(service, op, { ...query, limit: MAX_PAGE, ...(cursor ? { cursor } : {}) }, caller, id);
  const first = await read(query.cursor);
  const columns = op.csv as readonly string[];
  async function* lines() {
    yield csvHeader(columns);
    let page = first;
    for (;;) {
      yield csvRows(columns, (page.records ?? []).map(op.view));
      if (page.nextCursor === undefined) return;
      page = await read(page.nextCursor);
    }
  }
  return { first, send: (reply: FastifyReply) => reply.type(CSV_TYPE).send(Readable.from(lines())) };
}
