// The console's one way to the service: openapi-fetch typed by web/openapi.d.ts, which is generated
// from the contract (npm run console:api). Nothing here reaches the store: every call is a public
// API call, every move a proposal to the gate (D-43).
import createClient from 'openapi-fetch';
import type { components, paths } from './openapi.d.ts';

export type Deal = components['schemas']['Deal'];
export type Gig = components['schemas']['Gig'];
export type Closer = components['schemas']['Closer'];
export type Settlement = components['schemas']['Settlement'];
export type DryRun = components['schemas']['DryRun'];
export type ApiError = components['schemas']['Error'];
export type Escalation = components['schemas']['Escalation'];

/** The contract's deal prefix; the service may serve the deals elsewhere (DEAL_PREFIX). */
const CONTRACT_PREFIX = '/pipeline';
const dealPrefix = document.querySelector<HTMLMetaElement>('meta[name="deal-prefix"]')?.content ?? CONTRACT_PREFIX;

export const api = createClient<paths>({ baseUrl: location.origin });
if (dealPrefix !== CONTRACT_PREFIX) {
  api.use({
    onRequest({ request }) {
      const url = new URL(request.url);
      if (!url.pathname.startsWith(`${CONTRACT_PREFIX}/`)) return request;
      url.pathname = dealPrefix + url.pathname.slice(CONTRACT_PREFIX.length);
      return new Request(url, request);
    },
  });
}

/** What a call answered: its data, or the catalogue's error body and status. */
export type Outcome<T> = { ok: true; data: T; response: Response } | { ok: false; error: ApiError; status: number };

export function outcome<T>(answer: { data?: T; error?: unknown; response: Response }): Outcome<T> {
  if (answer.data !== undefined && answer.response.ok)
    return { ok: true, data: answer.data, response: answer.response };
  const error = (answer.error ?? { error: `HTTP ${answer.response.status}`, code: 'UNKNOWN' }) as ApiError;
  return { ok: false, error, status: answer.response.status };
}

/** The cursor of the next page from a demo list's Link header (D-39), if there is one. */
export function nextCursor(response: Response): string | undefined {
  const link = response.headers.get('link');
  const match = link ? /[?&]cursor=([^&>]+)/.exec(link) : null;
  return match ? decodeURIComponent(match[1]) : undefined;
}

/** Every record of a demo list, page after page (its Link header names the next, D-39). */
async function everyPage<T>(what: string, page: (cursor?: string) => Promise<{ data?: T[]; response: Response }>) {
  const records: T[] = [];
  let cursor: string | undefined;
  do {
    const answer = await page(cursor);
    if (!answer.data) throw new Error(`listing ${what}: HTTP ${answer.response.status}`);
    records.push(...answer.data);
    cursor = nextCursor(answer.response);
  } while (cursor);
  return records;
}

export const allDeals = (filter: { stage?: Deal['stage']; role?: Gig['role']; humanTrack?: boolean } = {}) =>
  everyPage('deals', (cursor) => api.GET('/pipeline/deals', { params: { query: { ...filter, limit: 1000, cursor } } }));

export const allGigs = (filter: { status?: Gig['status']; dealId?: string; closerId?: string } = {}) =>
  everyPage('gigs', (cursor) => api.GET('/closers/gigs', { params: { query: { ...filter, limit: 1000, cursor } } }));

export const allClosers = () =>
  everyPage('closers', (cursor) => api.GET('/closers/closers', { params: { query: { limit: 1000, cursor } } }));

/** The If-Match of a move decided on this deal (D-47). */
export const ifMatch = (deal: Pick<Deal, 'version'>) => ({ 'if-match': `"${deal.version}"` });

/**
 * USD as people read it. One formatter for every figure: toLocaleString with options builds a new
 * one on each call, which cost a board of 1,000 cards 30 to 90 ms in Chromium.
 */
const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });
export const usd = (amount: number) => dollars.format(amount);
