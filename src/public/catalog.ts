// The ROOT collections over the sandbox data set: typed envelopes OK, EMPTY, BLOCKED (D-29,
// D-30). Shared by the HTTP routes and the MCP door, so both answer the same envelopes.

import { decodeCursor, encodeCursor } from '../domain/cursor.ts';
import { compareIds } from '../domain/ids.ts';
import type { Deal, Gig } from '../domain/records.ts';
import { owningRole } from '../domain/stages.ts';
import { dealView, gigView } from '../views/records.ts';
import { buildSandbox, type SandboxData } from './sandbox.ts';

export const SANDBOX_LABEL =
  'Sandbox example data: fictional records made by driving the real deal service with a fixed clock. ' +
  'Not real deals; do not rely on them.';

export const MAX_PAGE = 100;
export const RESERVED_SCOPES = ['tenant', 'settlement'] as const;

/** What opens a reserved scope of GET /deals, in the words of every BLOCKED reason (D-227). */
export const KEYED_SCOPE_NEEDS = 'a Seller key with deals:read in Authorization: Bearer, in keys mode (AUTH=keys)';

export const isReservedScope = (scope: string | undefined): scope is (typeof RESERVED_SCOPES)[number] =>
  (RESERVED_SCOPES as readonly (string | undefined)[]).includes(scope);

export interface Envelope {
  status: number;
  body: Record<string, unknown>;
}

/** What every ROOT collection takes alike (D-30): a scope, a page size and an opaque cursor. */
export interface PageQuery {
  scope?: string;
  limit?: number;
  cursor?: string;
}

export interface DealQuery extends PageQuery {
  stage?: string;
  role?: string;
}

export interface GigQuery extends PageQuery {
  role?: string;
  status?: string;
}

const sandboxDeal = (deal: Deal) => ({ ...dealView(deal), sandbox: true as const });
const sandboxGig = (gig: Gig) => ({ ...gigView(gig), sandbox: true as const });

const envelope = (status: number, body: Record<string, unknown>): Envelope => ({
  status,
  body: { ...body, sandbox: true, label: SANDBOX_LABEL },
});
const empty = (status: number, message: string) => envelope(status, { type: 'EMPTY', message });
const badRequest = (code: 'INVALID_QUERY' | 'INVALID_CURSOR', error: string): Envelope => ({
  status: 400,
  body: { error, code },
});

/** One sandbox collection: its records in id order, each with its view serialized as served. */
class Collection<R extends { id: string }> {
  private readonly rows: { record: R; view: unknown }[];
  private readonly ids: Set<string>;

  constructor(
    /** `deals` or `gigs`: the envelope's key and the words of its messages. */
    private readonly name: 'deals' | 'gigs',
    records: readonly R[],
    view: (record: R) => unknown,
  ) {
    this.rows = [...records].sort((a, b) => compareIds(a.id, b.id)).map((record) => ({ record, view: view(record) }));
    this.ids = new Set(this.rows.map(({ record }) => record.id));
  }

  find(id: string): unknown {
    return this.rows.find(({ record }) => record.id === id)?.view;
  }

  /**
   * A cursor names the last record of a page (src/views/cursor.ts, as the demo lists'). Only a
   * cursor this collection gives out is taken: an id outside the collection was never handed out.
   */
  private decodeCursor(cursor: string): string | undefined {
    const id = decodeCursor(this.name === 'deals' ? 'deal' : 'gig', cursor);
    return id !== undefined && this.ids.has(id) ? id : undefined;
  }

  /**
   * D-30: the scope first (tenant and settlement are BLOCKED, any scope but sandbox is EMPTY),
   * then the page: `limit` records (1 to 100, default 100) after the cursor, among those the
   * filters match; `nextCursor` when a further page exists; EMPTY when the page is empty.
   */
  page(query: PageQuery, filters: Record<string, string | undefined>, matches: (record: R) => boolean): Envelope {
    const scope = query.scope ?? 'sandbox';
    if (isReservedScope(scope)) {
      // D-227: the reason names what opens the scope (GET /deals's, with a Seller's key).
      const real = scope === 'tenant' ? `tenant ${this.name}` : 'settlements';
      const opens =
        this.name === 'deals'
          ? `GET /deals opens it with ${KEYED_SCOPE_NEEDS}`
          : `GET /gigs serves none; GET /deals?scope=${scope} serves a tenant's own with ${KEYED_SCOPE_NEEDS}`;
      return envelope(403, {
        type: 'BLOCKED',
        reason: `Scope "${scope}" is reserved for keyed access to real ${real}: ${opens}. Without one this origin serves sandbox data only.`,
      });
    }
    if (scope !== 'sandbox') return empty(200, `No collection has scope "${scope}"; the scopes served here: sandbox.`);
    const limit = query.limit ?? MAX_PAGE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
      return badRequest('INVALID_QUERY', `limit must be an integer from 1 to ${MAX_PAGE}.`);
    }
    let after: string | undefined;
    if (query.cursor !== undefined) {
      after = this.decodeCursor(query.cursor);
      if (!after) return badRequest('INVALID_CURSOR', 'cursor is not one this service gave out.');
    }
    const matching = this.rows.filter(({ record }) => matches(record));
    const from = after === undefined ? 0 : matching.findIndex(({ record }) => compareIds(record.id, after) > 0);
    const page = from < 0 ? [] : matching.slice(from, from + limit);
    if (page.length === 0) {
      const named = Object.entries(filters)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}=${v}`);
      return empty(
        200,
        `No sandbox ${this.name} match${named.length ? ` ${named.join(', ')}` : ''}${after ? ' after this cursor' : ''}.`,
      );
    }
    const more = matching.length > from + limit;
    return envelope(200, {
      type: 'OK',
      [this.name]: page.map(({ view }) => view),
      count: page.length,
      total: matching.length,
      ...(more ? { nextCursor: encodeCursor(page[page.length - 1].record.id) } : {}),
    });
  }
}

export class RootCatalog {
  private readonly deals: Collection<Deal>;
  private readonly gigs: Collection<Gig>;

  constructor(data: SandboxData) {
    this.deals = new Collection('deals', data.deals, sandboxDeal);
    this.gigs = new Collection('gigs', data.gigs, sandboxGig);
  }

  static async create(): Promise<RootCatalog> {
    return new RootCatalog(await buildSandbox());
  }

  listDeals(query: DealQuery = {}): Envelope {
    const { stage, role } = query;
    return this.deals.page(
      query,
      { stage, role },
      (deal) => (stage === undefined || deal.stage === stage) && (role === undefined || owningRole(deal) === role),
    );
  }

  getDeal(id: string): Envelope {
    const found = this.deals.find(id);
    return found ? envelope(200, { type: 'OK', deal: found }) : empty(404, `No sandbox deal ${id}.`);
  }

  listGigs(query: GigQuery = {}): Envelope {
    const { role, status } = query;
    return this.gigs.page(
      query,
      { role, status },
      (gig) => (role === undefined || gig.role === role) && (status === undefined || gig.status === status),
    );
  }
}
