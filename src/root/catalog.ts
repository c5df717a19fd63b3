// The ROOT collections over the sandbox data set: typed envelopes OK, EMPTY, BLOCKED (D-29,
// D-30). Shared by the HTTP routes and the MCP door, so both answer the same envelopes.
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

export interface Envelope {
  status: number;
  body: Record<string, unknown>;
}

export interface DealQuery {
  stage?: string;
  role?: string;
  scope?: string;
  limit?: number;
  cursor?: string;
}

export interface GigQuery {
  role?: string;
  status?: string;
}

const sandboxDeal = (deal: Deal) => ({ ...dealView(deal), sandbox: true as const });
const sandboxGig = (gig: Gig) => ({ ...gigView(gig), sandbox: true as const });
type SandboxDealView = ReturnType<typeof sandboxDeal>;

const envelope = (status: number, body: Record<string, unknown>): Envelope => ({
  status,
  body: { ...body, sandbox: true, label: SANDBOX_LABEL },
});
const empty = (status: number, message: string) => envelope(status, { type: 'EMPTY', message });

export const encodeCursor = (afterId: string) => Buffer.from(afterId, 'utf8').toString('base64url');

export class RootCatalog {
  private readonly deals: { deal: Deal; view: SandboxDealView }[];
  private readonly gigs: { gig: Gig; view: ReturnType<typeof sandboxGig> }[];

  constructor(data: SandboxData) {
    this.deals = [...data.deals]
      .sort((a, b) => compareIds(a.id, b.id))
      .map((deal) => ({ deal, view: sandboxDeal(deal) }));
    this.gigs = [...data.gigs].sort((a, b) => compareIds(a.id, b.id)).map((gig) => ({ gig, view: sandboxGig(gig) }));
  }

  /**
   * A cursor names the last deal of a page. Only a cursor this service gives out is taken: the
   * canonical base64url of a sandbox deal id (Node's decoder skips stray characters, so the text
   * is encoded back and compared; an id outside the data set was never handed out).
   */
  private decodeCursor(cursor: string): string | undefined {
    const id = Buffer.from(cursor, 'base64url').toString('utf8');
    if (encodeCursor(id) !== cursor) return undefined;
    return this.deals.some(({ deal }) => deal.id === id) ? id : undefined;
  }

  static async create(): Promise<RootCatalog> {
    return new RootCatalog(await buildSandbox());
  }

  listDeals(query: DealQuery = {}): Envelope {
    const scope = query.scope ?? 'sandbox';
    if ((RESERVED_SCOPES as readonly string[]).includes(scope)) {
      return envelope(403, {
        type: 'BLOCKED',
        reason:
          `Scope "${scope}" is reserved for keyed access to real ${scope === 'tenant' ? 'tenant deals' : 'settlements'}. ` +
          'Keys are not issued yet (the service is pre-launch); this origin serves sandbox data only.',
      });
    }
    if (scope !== 'sandbox') return empty(200, `No collection has scope "${scope}"; the scopes served here: sandbox.`);
    const limit = query.limit ?? MAX_PAGE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
      return { status: 400, body: { error: `limit must be an integer from 1 to ${MAX_PAGE}.`, code: 'INVALID_QUERY' } };
    }
    let after: string | undefined;
    if (query.cursor !== undefined) {
      after = this.decodeCursor(query.cursor);
      if (!after)
        return { status: 400, body: { error: 'cursor is not one this service gave out.', code: 'INVALID_CURSOR' } };
    }
    const matching = this.deals.filter(
      ({ deal }) =>
        (query.stage === undefined || deal.stage === query.stage) &&
        (query.role === undefined || owningRole(deal) === query.role),
    );
    const from = after === undefined ? 0 : matching.findIndex(({ deal }) => compareIds(deal.id, after) > 0);
    const page = from < 0 ? [] : matching.slice(from, from + limit);
    if (page.length === 0) {
      const filters = Object.entries({ stage: query.stage, role: query.role })
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}=${v}`);
      return empty(
        200,
        `No sandbox deals match${filters.length ? ` ${filters.join(', ')}` : ''}${after ? ' after this cursor' : ''}.`,
      );
    }
    const last = page[page.length - 1].deal.id;
    const more = matching.length > from + limit;
    return envelope(200, {
      type: 'OK',
      deals: page.map((d) => d.view),
      count: page.length,
      total: matching.length,
      ...(more ? { nextCursor: encodeCursor(last) } : {}),
    });
  }

  getDeal(id: string): Envelope {
    const found = this.deals.find(({ deal }) => deal.id === id);
    return found ? envelope(200, { type: 'OK', deal: found.view }) : empty(404, `No sandbox deal ${id}.`);
  }

  listGigs(query: GigQuery = {}): Envelope {
    const gigs = this.gigs.filter(
      ({ gig }) =>
        (query.role === undefined || gig.role === query.role) &&
        (query.status === undefined || gig.status === query.status),
    );
    if (gigs.length === 0) {
      const filters = Object.entries(query)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}=${v}`);
      return empty(200, `No sandbox gigs match${filters.length ? ` ${filters.join(', ')}` : ''}.`);
    }
    return envelope(200, { type: 'OK', gigs: gigs.map((g) => g.view), count: gigs.length });
  }
}
