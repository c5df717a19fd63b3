// The console's one way to the service: openapi-fetch typed by web/openapi.d.ts, which is generated
// from the contract (npm run console:api). Nothing here reaches the store: every call is a public
// API call, every move a proposal to the gate (D-43).
import createClient from 'openapi-fetch';
import type { components, paths } from './openapi.d.ts';
import { AUTH, never, sessionEnded } from './session.ts';

export type Deal = components['schemas']['Deal'];
export type Gig = components['schemas']['Gig'];
export type Closer = components['schemas']['Closer'];
export type Settlement = components['schemas']['Settlement'];
export type DryRun = components['schemas']['DryRun'];
export type ApiError = components['schemas']['Error'];
export type Escalation = components['schemas']['Escalation'];
// D-68 to D-70: a key's policy and usage, the limits a move met, a held proposal's approval.
// A key's policy and usage are keys mode's only, so the demo's generated contract has no schema of
// them: as src/schemas/policies.ts declares them.
export interface KeyPolicy {
  maxDealValueUsd?: number;
  minCloseValuePct?: number;
  allowedMoves?: Deal['stage'][];
  closesPerDay?: number;
  closedValuePerDayUsd?: number;
  onLimit: 'hold' | 'refuse';
  approvalsRequired: number;
  approvalTtlHours: number;
}
export interface KeyUsage {
  day: string;
  closes: number;
  closedValueUsd: number;
}
export type PolicyLimit = components['schemas']['PolicyLimit'];
export type Approval = components['schemas']['Approval'];
export type Held = components['schemas']['Held'];

/** The contract's deal prefix; the service may serve the deals elsewhere (DEAL_PREFIX). */
const CONTRACT_PREFIX = '/pipeline';
const dealPrefix = document.querySelector<HTMLMetaElement>('meta[name="deal-prefix"]')?.content ?? CONTRACT_PREFIX;

export const api = createClient<paths>({ baseUrl: location.origin });
// D-59: in keys mode the browser's session cookie is the credential; a 401 means it ended.
if (AUTH === 'keys') {
  api.use({
    onResponse({ response }) {
      // The page restarts on the sign-in page; the call that met the 401 never answers.
      if (response.status === 401 && sessionEnded()) return never<Response>();
      return response;
    },
  });
}
/** A contract path as this service serves it: the deals' under its prefix, the rest as they are. */
const servedPath = (path: string) =>
  path.startsWith(`${CONTRACT_PREFIX}/`) ? dealPrefix + path.slice(CONTRACT_PREFIX.length) : path;
if (dealPrefix !== CONTRACT_PREFIX) {
  api.use({
    onRequest({ request }) {
      const url = new URL(request.url);
      if (!url.pathname.startsWith(`${CONTRACT_PREFIX}/`)) return request;
      url.pathname = servedPath(url.pathname);
      return new Request(url, request);
    },
  });
}

/** What a call answered: its data, or the catalogue's error body and status. */
export type Outcome<T> = { ok: true; data: T; response: Response } | { ok: false; error: ApiError; status: number };

/** What a form does with an answer: says it in words when it succeeded, or the refusal's. */
export type Answered = <T>(outcome: Outcome<T>, words: (data: T) => string) => void;

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

// ── keys mode's own operations (D-51, D-52) ───────────────────────────────────────────────────
// `/keys` and `/sellers` are keys mode's only (D-220), so web/openapi.d.ts, generated from the
// demo's contract, does not have them: these few calls are typed here, after their schemas
// (src/schemas/accounts.ts). Each goes with the session's cookie, like every other call.

export interface Seller {
  id: string;
  name: string;
  createdAt: string;
}

export interface ApiKeyRecord {
  id: string;
  /** Only in the answer that made the key (issue or roll): shown once. */
  key?: string;
  prefix: string;
  name: string;
  principal: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt?: string;
  /** A rolled key: the key its roll made to replace it (D-260). */
  replacedBy?: string;
  /** The person who made it (`usr_NNNN`, D-62); absent for a key made with a key. */
  createdBy?: string;
  /** A Seller's key's bounds (D-68), its defaults stated; absent when it has none. */
  policy?: KeyPolicy;
  /** A Seller's key's closes of the platform clock's day: in `GET /keys/{id}` only. */
  usage?: KeyUsage;
}

/** A policy as it is sent (D-68): every limit optional, the service stating the defaults. */
export type PolicyInput = Partial<KeyPolicy>;

/** A call of keys mode's own: its answer, or the catalogue's error; a 401 ends the session. */
export async function call<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<Outcome<T>> {
  const response = await fetch(path, {
    method,
    headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 401 && sessionEnded()) return never();
  const data = await response.json().catch(() => undefined);
  if (response.ok) return { ok: true, data: data as T, response };
  return {
    ok: false,
    error: (data ?? { error: `HTTP ${response.status}`, code: 'UNKNOWN' }) as ApiError,
    status: response.status,
  };
}

/**
 * D-74: a list as the service writes it in CSV (`Accept: text/csv`: every page, what the session
 * may see), `path` in the contract's form (`/pipeline/deals`), with the session's cookie; a 401
 * ends the session.
 */
export async function csvList(path: string, query: URLSearchParams): Promise<Outcome<Blob>> {
  const response = await fetch(`${servedPath(path)}${query.size > 0 ? `?${query}` : ''}`, {
    headers: { accept: 'text/csv' },
  });
  if (response.status === 401 && sessionEnded()) return never();
  if (response.ok) return { ok: true, data: await response.blob(), response };
  const error = (await response.json().catch(() => undefined)) as ApiError | undefined;
  return { ok: false, error: error ?? { error: `HTTP ${response.status}`, code: 'UNKNOWN' }, status: response.status };
}

/** Every record of a keys-mode list, page after page. */
export async function everyRecord<T>(path: string): Promise<T[]> {
  const records: T[] = [];
  let cursor: string | undefined;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const answer = await call<T[]>(
      'GET',
      `${path}${separator}limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    if (!answer.ok) throw new Error(`listing ${path}: ${answer.error.error}`);
    records.push(...answer.data);
    cursor = nextCursor(answer.response);
  } while (cursor);
  return records;
}

export const accounts = {
  sellers: () => everyRecord<Seller>('/sellers'),
  createSeller: (name: string) => call<Seller>('POST', '/sellers', { name }),
  keys: () => everyRecord<ApiKeyRecord>('/keys'),
  issueKey: (body: { name: string; principal: string; scopes: string[]; policy?: PolicyInput }) =>
    call<ApiKeyRecord>('POST', '/keys', body),
  /** One key, a Seller's with its usage of the day (D-68). */
  key: (id: string) => call<ApiKeyRecord>('GET', `/keys/${encodeURIComponent(id)}`),
  /** A key's policy set whole, or removed (`null`). */
  setPolicy: (id: string, policy: PolicyInput | null) =>
    call<ApiKeyRecord>('PUT', `/keys/${encodeURIComponent(id)}/policy`, { policy }),
  rollKey: (id: string) => call<ApiKeyRecord>('POST', `/keys/${encodeURIComponent(id)}/roll`),
  revokeKey: (id: string) => call<ApiKeyRecord>('POST', `/keys/${encodeURIComponent(id)}/revoke`),
};

/** Enrols a closer (the desk's form and the admin page's), its industries as typed: comma-separated. */
export function enrolCloser(name: string, industries: string) {
  const list = industries
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return api.POST('/closers/closers', { body: { name, industries: list } });
}

// ── refused proposals (D-61) ───────────────────────────────────────────────────────────────────
// Every proposal the gate refused (an agent's advance, a closer's gig advance or revival) is kept
// beside its deal; the summary counts the moves it committed and refused per executor.

export type RefusedProposal = components['schemas']['RefusedProposal'];
export type ProposalSummary = components['schemas']['ProposalSummary'];
export type Executor = RefusedProposal['by'];
export type ProposalFilter = { dealId?: string; by?: Executor; code?: RefusedProposal['code']; keyId?: string };

/** A deal's refused proposals, newest first (a deal keeps its newest 1,000: one page). */
export async function dealProposals(id: string): Promise<Outcome<RefusedProposal[]>> {
  return outcome(await api.GET('/pipeline/deals/{id}/proposals', { params: { path: { id }, query: { limit: 1000 } } }));
}

/**
 * The refused proposals the caller may see, newest first, page after page up to `max` records;
 * `more` says whether older ones were left unread.
 */
export async function listProposals(
  filter: ProposalFilter = {},
  max = 5000,
): Promise<{ records: RefusedProposal[]; more: boolean }> {
  const records: RefusedProposal[] = [];
  let cursor: string | undefined;
  do {
    const answer = await api.GET('/pipeline/proposals', {
      params: { query: { ...filter, limit: Math.min(1000, max - records.length), cursor } },
    });
    if (!answer.data) throw new Error(`listing the proposals: HTTP ${answer.response.status}`);
    records.push(...answer.data);
    cursor = nextCursor(answer.response);
  } while (cursor && records.length < max);
  return { records, more: cursor !== undefined };
}

/** The summary over every deal the caller may see; with a key, that key's moves only (keys mode). */
export const proposalSummary = async (keyId?: string): Promise<Outcome<ProposalSummary>> =>
  outcome(await api.GET('/pipeline/proposals/summary', { params: { query: keyId ? { keyId } : {} } }));
