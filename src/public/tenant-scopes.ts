// Keys mode: ROOT's reserved scopes opened by a Seller's key (D-60, D-226, D-227). With
// `Authorization: Bearer <a Seller key carrying deals:read>`, `GET /deals?scope=tenant` answers the
// Seller's own deals from the live store, and `?scope=settlement` the settlements of its deals
// closed won, in ROOT's envelopes (OK, EMPTY) marked `sandbox: false`. Thin: the service's own
// queries, held to the caller's visibility (D-54), do the reading. Anything else (no key, a wrong
// key, another kind of key, no deals:read, the demo) is the catalogue's 403 BLOCKED.
import type { Caller } from '../domain/access.ts';
import { decodeCursor, encodeCursor } from '../domain/cursor.ts';
import type { Deal } from '../domain/records.ts';
import { isRole, isStage } from '../domain/stages.ts';
import type { PipelineService } from '../service/pipeline-service.ts';
import { dealView, settlementView } from '../views/records.ts';
import { type DealQuery, type Envelope, MAX_PAGE } from './catalog.ts';

const labelOf = (sellerId: string) =>
  `Live data of ${sellerId} from this service's store: real records of your tenant, not sandbox example data.`;

/** D-226: a keyed scope's envelope is ROOT's, with `sandbox: false` and a label saying so. */
const live = (sellerId: string, status: number, body: Record<string, unknown>): Envelope => ({
  status,
  body: { ...body, sandbox: false, label: labelOf(sellerId) },
});

const badRequest = (code: 'INVALID_QUERY' | 'INVALID_CURSOR', error: string): Envelope => ({
  status: 400,
  body: { error, code },
});

/**
 * D-226: a page of the caller's deals (`tenant`) or of the settlements of its deals closed won
 * (`settlement`), in id order of the deals, `limit` at a time after `cursor`; the stage and role
 * filters apply to the deals. No `total`: counting a tenant's live deals would read every one of
 * them on every page.
 */
export async function tenantScope(
  service: PipelineService,
  caller: Caller,
  scope: 'tenant' | 'settlement',
  query: DealQuery,
): Promise<Envelope> {
  const seller = caller.principal;
  const limit = query.limit ?? MAX_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
    return badRequest('INVALID_QUERY', `limit must be an integer from 1 to ${MAX_PAGE}.`);
  }
  let afterId: string | undefined;
  if (query.cursor !== undefined) {
    afterId = decodeCursor('deal', query.cursor);
    if (afterId === undefined) return badRequest('INVALID_CURSOR', 'cursor is not one this service gave out.');
  }
  const { stage, role } = query;
  const named = [
    ...(stage === undefined ? [] : [`stage=${stage}`]),
    ...(role === undefined ? [] : [`role=${role}`]),
  ].join(', ');
  const what = scope === 'tenant' ? 'deals' : 'settlements';
  const empty = () =>
    live(seller, 200, {
      type: 'EMPTY',
      message: `${seller} has no ${what}${named ? ` matching ${named}` : ''}${afterId ? ' after this cursor' : ''}.`,
    });
  // A filter value that names no stage or role matches nothing (D-30); settlements are of deals
  // closed won only.
  if (stage !== undefined && !isStage(stage)) return empty();
  if (role !== undefined && !isRole(role)) return empty();
  if (scope === 'settlement' && stage !== undefined && stage !== 'closed_won') return empty();
  const deals = await service.queries.listDeals(
    {
      ...(scope === 'settlement' ? { stage: 'closed_won' as const } : stage === undefined ? {} : { stage }),
      ...(role === undefined ? {} : { role }),
      ...(afterId === undefined ? {} : { afterId }),
      limit: limit + 1,
    },
    caller,
  );
  if (deals.length === 0) return empty();
  const page = deals.slice(0, limit);
  const more = deals.length > limit ? { nextCursor: encodeCursor((page.at(-1) as Deal).id) } : {};
  if (scope === 'tenant') {
    return live(seller, 200, { type: 'OK', deals: page.map(dealView), count: page.length, ...more });
  }
  const settled = await Promise.all(page.map((deal) => service.queries.settlement(deal.id, caller)));
  const settlements = settled.flatMap((result) => (result.ok ? [settlementView(result.value)] : []));
  return live(seller, 200, { type: 'OK', settlements, count: settlements.length, ...more });
}
