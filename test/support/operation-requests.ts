// For every operation of the table (src/operations/table.ts), a request it accepts, made ready on
// a fresh in-process server (test/support/inject.ts): the records it needs are made through the
// API first. The HTTP-door tests (test/http/) run each operation's conventions from these, so a
// new operation without a request here fails them until it gets one.
import assert from 'node:assert/strict';
import type { Operation } from '../../src/operations/operation.ts';
import { pathOf } from '../../src/operations/operation.ts';
import { OPERATIONS } from '../../src/operations/table.ts';
import type { InjectServer } from './inject.ts';

/** A request an operation accepts: the path's id, the body and the query, if it has them. */
export interface Ready {
  id?: string;
  body?: unknown;
  /** A query string it needs (without `?`). */
  query?: string;
}

/** The two closers every fresh server is seeded with (D-27). */
export const ADA = 'closer_0001';

export const dealBody = (listValueUsd = 40_000) => ({
  account: { name: 'Fictional Widgets Ltd', industry: 'saas', actor: 'B2B' },
  listValueUsd,
});

const HUMAN_CLOSER = { staffing: { closer: 'human' } };

/** Sends a request that must succeed, and answers its body. */
export async function ok<T = any>(
  t: InjectServer,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const answer = await t.send<T>(method, path, { ...(body === undefined ? {} : { body }), headers });
  assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${answer.text}`);
  return answer.body;
}

export async function createDeal(t: InjectServer, mandate?: unknown): Promise<string> {
  const deal = await ok(t, 'POST', `${t.prefix}/deals`, { ...dealBody(), ...(mandate ? { mandate } : {}) });
  return deal.id;
}

export const advance = (t: InjectServer, dealId: string, body?: unknown) =>
  ok(t, 'POST', `${t.prefix}/deals/${dealId}/advance`, body);

/** A deal whose closer is a human, at meeting, with its closer gig posted (open). */
export async function openCloserGig(t: InjectServer): Promise<{ dealId: string; gigId: string }> {
  const dealId = await createDeal(t, HUMAN_CLOSER);
  await advance(t, dealId);
  await advance(t, dealId);
  const escalation = await advance(t, dealId);
  assert.equal(escalation.escalated, true);
  return { dealId, gigId: escalation.gig.id };
}

/** The same, its gig claimed by Ada. */
export async function claimedCloserGig(t: InjectServer): Promise<{ dealId: string; gigId: string }> {
  const made = await openCloserGig(t);
  await ok(t, 'POST', `/closers/gigs/${made.gigId}/claim`, { closerId: ADA });
  return made;
}

/** A deal gone dark, its nurturer gig claimed by Ada. */
async function claimedNurturerGig(t: InjectServer): Promise<{ dealId: string; gigId: string }> {
  const dealId = await createDeal(t);
  await ok(t, 'POST', `${t.prefix}/deals/${dealId}/signals`, { signals: ['gone_dark'] });
  const escalation = await advance(t, dealId);
  await ok(t, 'POST', `/closers/gigs/${escalation.gig.id}/claim`, { closerId: ADA });
  return { dealId, gigId: escalation.gig.id };
}

/** A deal the agent closed won (list value, no human). */
async function wonDeal(t: InjectServer): Promise<string> {
  const dealId = await createDeal(t);
  for (let i = 0; i < 5; i++) await advance(t, dealId);
  return dealId;
}

async function webhook(t: InjectServer): Promise<string> {
  return (await ok(t, 'POST', '/webhooks', { url: 'http://127.0.0.1:8080/hook' })).id;
}

/**
 * Each operation's request, by operation id. The keys-mode accounts (Sellers, keys) are made and
 * used by the keys tests, and the demo controls the demo serves need no record.
 */
export const READY: Record<string, (t: InjectServer) => Promise<Ready>> = {
  getHealth: async () => ({}),
  resetDemo: async () => ({}),
  advanceDemoClock: async () => ({ body: { advanceHours: 2 } }),
  createDeal: async () => ({ body: dealBody() }),
  sell: async () => ({ body: dealBody() }),
  listDeals: async () => ({}),
  getDeal: async (t) => ({ id: await createDeal(t) }),
  editDeal: async (t) => ({ id: await createDeal(t), body: { listValueUsd: 45_000 } }),
  advanceDeal: async (t) => ({ id: await createDeal(t), body: { advanceTo: 'qualified' } }),
  reportSignals: async (t) => ({ id: await createDeal(t), body: { signals: ['budget_cut'] } }),
  getSettlement: async (t) => ({ id: await wonDeal(t) }),
  reengageDeal: async (t) => {
    const id = await createDeal(t);
    await advance(t, id, { advanceTo: 'closed_lost' });
    return { id };
  },
  deescalateDeal: async (t) => ({ id: (await openCloserGig(t)).dealId }),
  listProposals: async () => ({}),
  getProposalSummary: async () => ({}),
  listDealProposals: async (t) => ({ id: await createDeal(t) }),
  enrolCloser: async () => ({ body: { name: 'Grace Fictional', industries: ['saas'] } }),
  listClosers: async () => ({}),
  getCloser: async () => ({ id: ADA }),
  matchClosers: async () => ({ body: { industry: 'saas', valueUsd: 40_000, role: 'closer' } }),
  listGigs: async () => ({}),
  getGig: async (t) => ({ id: (await openCloserGig(t)).gigId }),
  claimGig: async (t) => ({ id: (await openCloserGig(t)).gigId, body: { closerId: ADA } }),
  advanceGig: async (t) => ({ id: (await claimedCloserGig(t)).gigId, body: { advanceTo: 'proposal' } }),
  reviveGig: async (t) => ({ id: (await claimedNurturerGig(t)).gigId }),
  releaseGig: async (t) => ({ id: (await claimedCloserGig(t)).gigId, body: { closerId: ADA } }),
  expireGig: async (t) => ({ id: (await claimedCloserGig(t)).gigId }),
  listEvents: async () => ({}),
  createWebhook: async () => ({ body: { url: 'http://127.0.0.1:8080/hook' } }),
  listWebhooks: async () => ({}),
  getWebhook: async (t) => ({ id: await webhook(t) }),
  deleteWebhook: async (t) => ({ id: await webhook(t) }),
  listWebhookDeliveries: async (t) => ({ id: await webhook(t) }),
  getPipelineInsight: async () => ({}),
  getFunnelInsight: async () => ({}),
  getVelocityInsight: async () => ({}),
  getPerformanceInsight: async () => ({ query: 'by=executor' }),
  getMarketplaceInsight: async () => ({}),
  getMoneyInsight: async () => ({}),
  refundDeal: async (t) => ({ id: await wonDeal(t), body: { amountUsd: 100, reason: 'the customer returned part' } }),
  listRefunds: async (t) => ({ id: await wonDeal(t) }),
  runPayouts: async () => ({ body: { reference: 'batch-1' } }),
  listPayouts: async () => ({}),
  getBalance: async () => ({ query: 'account=seller:none' }),
  listTransfers: async () => ({}),
  getCloserStatement: async () => ({ id: ADA, query: 'month=2026-11' }),
  getSellerStatement: async () => ({ id: 'none', query: 'month=2026-11' }),
};

/** The operations the demo serves (every one but the keys-mode accounts). */
export const DEMO_OPERATIONS = OPERATIONS.filter((op) => !op.keysOnly);

/** The path of an operation's request. */
export function pathFor(t: InjectServer, op: Operation, id = ''): string {
  return pathOf(op, t.prefix).replace('{id}', encodeURIComponent(id));
}

/** Makes the operation's request ready on `t` and answers how to send it. */
export async function ready(t: InjectServer, op: Operation): Promise<{ path: string; id?: string; body?: unknown }> {
  const make = READY[op.id];
  assert.ok(make, `no request for ${op.id} in test/support/operation-requests.ts: add one`);
  const { id, body, query } = await make(t);
  const path = pathFor(t, op, id);
  return { path: query === undefined ? path : `${path}?${query}`, id, body };
}
