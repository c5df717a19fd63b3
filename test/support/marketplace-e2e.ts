// Typed views of the JSON the service answers, and small steps that drive deals and gigs over
// real HTTP, for the marketplace, gig-lifecycle, timer and concurrency end-to-end tests.
import assert from 'node:assert/strict';
import { account, type TestServer } from './http.ts';

export interface ActivityView {
  at: string;
  by: 'service' | 'agent' | 'human';
  stage: string;
  note: string;
  /** D-272: the gig and closer an entry is about, in fields (the words name no id). */
  gigId?: string;
  closerId?: string;
}

export interface AccountView {
  name: string;
  industry?: string;
  actor: string;
}

export interface DealView {
  id: string;
  version: number;
  account: AccountView;
  listValueUsd: number;
  stage: string;
  signals: string[];
  mandate: {
    staffing: Record<string, unknown>;
    commissionPct: number;
    maxCommissionPct: number;
    floorPct: number;
    fees: { setterUsd: number; nurturerUsd: number };
    stallTimeoutDays: number;
  };
  activity: ActivityView[];
  humanTrack?: boolean;
  finalValueUsd?: number;
  closedBy?: 'agent' | 'human';
  lineage?: { revivedFrom: string };
}

export type PricingView = { kind: 'commission'; pct: number } | { kind: 'fee'; amountUsd: number };

export interface GigView {
  id: string;
  status: 'open' | 'claimed' | 'fulfilled' | 'released' | 'expired';
  dealId: string;
  role: 'setter' | 'closer' | 'nurturer';
  brief: {
    account: AccountView;
    listValueUsd: number;
    stage: string;
    signals: string[];
    floorUsd: number;
    activity: ActivityView[];
  };
  pricing: PricingView;
  closerId?: string;
  postedAt: string;
  claimedAt?: string;
  outcome?: string;
  finalValueUsd?: number;
}

export interface PayoutView {
  at: string;
  gigId: string;
  dealId: string;
  kind: 'commission' | 'fee';
  amountUsd: number;
}

export interface CloserView {
  id: string;
  name: string;
  industries: string[];
  record: { gigs: number; wins: number; grossClosedUsd: number };
  payouts: PayoutView[];
}

export interface MatchView {
  closer: CloserView;
  score: number;
  winRate: number;
}

export interface EscalationView {
  escalated: true;
  role: 'setter' | 'closer' | 'nurturer';
  gig: GigView;
  suggestedClosers: MatchView[];
  deal: DealView;
}

export interface GigOutcomeView {
  gig: GigView;
  deal: DealView;
  closer?: CloserView;
}

export interface SettlementView {
  dealId: string;
  finalValueUsd: number;
  closedBy: 'agent' | 'human';
  closerCommissionUsd: number;
  platformFeeUsd: number;
  feesSettledUsd: number;
  netToSellerUsd: number;
  fees: { gigId: string; role: string; closerId: string; amountUsd: number }[];
}

export interface ErrorView {
  error: string;
  code: string;
  violations?: string[];
  gate?: { error: string; code: string };
}

/** The two closers every fresh server is seeded with (D-27). */
export const ADA = 'closer_0001'; // saas, fintech
export const MILO = 'closer_0002'; // healthcare, logistics

/** Asserts a JSON error body with the status and (when given) the stable code. */
export function assertError(answer: { status: number; body: unknown }, status: number, code?: string): ErrorView {
  assert.equal(answer.status, status, `expected ${status}, got ${answer.status}: ${JSON.stringify(answer.body)}`);
  const body = answer.body as ErrorView;
  assert.equal(typeof body, 'object');
  assert.equal(typeof body.error, 'string');
  assert.ok(body.error.length > 0, 'error is a non-empty string');
  assert.equal(typeof body.code, 'string');
  if (code !== undefined) assert.equal(body.code, code);
  return body;
}

export type DealInput = {
  account?: Record<string, unknown>;
  listValueUsd?: number;
  mandate?: Record<string, unknown>;
};

export function dealBody(input: DealInput = {}) {
  return {
    account: account(input.account),
    listValueUsd: input.listValueUsd ?? 15_000,
    ...(input.mandate ? { mandate: input.mandate } : {}),
  };
}

export async function createDeal(t: TestServer, input: DealInput = {}): Promise<DealView> {
  const answer = await t.post<DealView>(`${t.prefix}/deals`, dealBody(input));
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body;
}

export async function getDeal(t: TestServer, id: string): Promise<DealView> {
  const answer = await t.get<DealView>(`${t.prefix}/deals/${id}`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

/** Advances a deal that the agent works; fails if it escalates or is refused. */
export async function advanceDeal(t: TestServer, id: string, body?: unknown): Promise<DealView> {
  const answer = await t.post<DealView | EscalationView>(`${t.prefix}/deals/${id}/advance`, body);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.ok(!('escalated' in answer.body), `expected the agent to move the deal, got an escalation`);
  return answer.body as DealView;
}

/** Advances a deal whose owning role calls for a human; fails unless the answer is an escalation. */
export async function escalateDeal(t: TestServer, id: string): Promise<EscalationView> {
  const answer = await t.post<EscalationView>(`${t.prefix}/deals/${id}/advance`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body.escalated, true, 'expected an escalation');
  return answer.body;
}

export async function reportSignals(t: TestServer, id: string, signals: string[]): Promise<DealView> {
  const answer = await t.post<DealView>(`${t.prefix}/deals/${id}/signals`, { signals });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

/** Every gig, or the one with this id (there is no GET of one gig: the list is the read model). */
export async function listGigs(t: TestServer, status?: string): Promise<GigView[]> {
  const answer = await t.get<GigView[]>(`/closers/gigs${status ? `?status=${status}` : ''}`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

export async function getGig(t: TestServer, id: string): Promise<GigView> {
  const gig = (await listGigs(t)).find((g) => g.id === id);
  assert.ok(gig, `gig ${id} is listed`);
  return gig;
}

export async function getCloser(t: TestServer, id: string): Promise<CloserView> {
  const answer = await t.get<CloserView>(`/closers/closers/${id}`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

export async function enrol(t: TestServer, name: string, industries: string[] = []): Promise<CloserView> {
  const answer = await t.post<CloserView>('/closers/closers', { name, industries });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body;
}

export async function claim(t: TestServer, gigId: string, closerId: string): Promise<GigOutcomeView> {
  const answer = await t.post<GigOutcomeView>(`/closers/gigs/${gigId}/claim`, { closerId });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

export async function advanceGig(
  t: TestServer,
  gigId: string,
  body: { advanceTo: string; valueUsd?: number; note?: string; closerId?: string },
): Promise<GigOutcomeView> {
  const answer = await t.post<GigOutcomeView>(`/closers/gigs/${gigId}/advance`, body);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

/** A mandate whose closer role is always a human: the deal escalates at meeting. */
export const HUMAN_CLOSER = { staffing: { closer: 'human' } };

/** Creates a deal, lets the agent take it to meeting and escalates it: an open closer gig. */
export async function openCloserGig(t: TestServer, input: DealInput = {}): Promise<EscalationView> {
  const deal = await createDeal(t, { mandate: HUMAN_CLOSER, ...input });
  await advanceDeal(t, deal.id);
  await advanceDeal(t, deal.id);
  const escalation = await escalateDeal(t, deal.id);
  assert.equal(escalation.role, 'closer');
  assert.equal(escalation.gig.status, 'open');
  return escalation;
}

/** An open closer gig, claimed by closerId. */
export async function claimedCloserGig(
  t: TestServer,
  closerId: string,
  input: DealInput = {},
): Promise<{ gig: GigView; deal: DealView }> {
  const escalation = await openCloserGig(t, input);
  return claim(t, escalation.gig.id, closerId);
}

/** A claimed closer gig worked through to negotiation: the next move is a close. */
export async function negotiatingCloserGig(
  t: TestServer,
  closerId: string,
  input: DealInput = {},
): Promise<{ gig: GigView; deal: DealView }> {
  const { gig } = await claimedCloserGig(t, closerId, input);
  await advanceGig(t, gig.id, { advanceTo: 'proposal' });
  return advanceGig(t, gig.id, { advanceTo: 'negotiation' });
}

/** Integer-cent percentage of a USD amount, rounded half-up (D-22), back in USD. */
export function pctOfUsd(usd: number, pct: number): number {
  const cents = BigInt(Math.round(usd * 100));
  // pct as an exact decimal fraction: digits / 10^scale
  const [whole, fraction = ''] = String(pct).split('.');
  const digits = BigInt(whole + fraction);
  const denominator = 10n ** BigInt(fraction.length);
  const rounded = (cents * digits * 2n + denominator) / (denominator * 2n);
  return Number(rounded) / 100;
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** Moves the demo clock forward (running the platform timers) and returns the answered time. */
export async function advanceClock(t: TestServer, advanceHours: number): Promise<number> {
  const answer = await t.post<{ now: string }>('/demo/clock', { advanceHours });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return Date.parse(answer.body.now);
}

/** A fixed clock, so the tests can state exact times. */
export const T0 = Date.parse('2030-03-04T09:00:00.000Z');
export const fixedClock = { now: () => T0 };
