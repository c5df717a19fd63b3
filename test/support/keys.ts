// Keys mode's fixture (D-50..D-57) for the end-to-end tests: on a keys-mode test server, made
// through the API only, two Sellers with full keys, an agent's and a read-only key of Seller A,
// two closers enrolled by the operator with keys (and a read-only key of closer 1), and per
// Seller some objects: a deal escalated to a human closer with its open gig, and a deal closed
// won by closer 1 through its gig (so a settlement and payouts exist); and an operator's webhook.
// Small builders make fresh objects of each kind for tests whose writes must not interfere.
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import type { Config } from '../../src/config.ts';
import type { Caller, KeyScope, PrincipalKind } from '../../src/domain/access.ts';
import type { LogStream } from '../../src/http/app.ts';
import { checkAgainstContract } from './contract-check.ts';
import { type Answer, startTestServer, type TestServer } from './http.ts';

/** The operator's first key (OPERATOR_KEY): 32 to 256 visible ASCII characters. */
export const OP = 'test-operator-key/0123456789-abcdefghijklmnopqrstuvwxyz!';

/** A keys-mode test server (the store is TEST_STORE's). */
export function startKeysServer(config: Partial<Config> = {}, logStream?: LogStream) {
  return startTestServer({
    config: { auth: 'keys', operatorKey: OP, webhookAllowPrivate: true, ...config },
    ...(logStream ? { logStream } : {}),
  });
}

export const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

/** A client whose every request carries one Authorization header (or none). */
/** An answer, with its body's very text (to look for key texts in it). */
export interface KeyedAnswer<T = any> extends Answer<T> {
  text: string;
}

export interface Client {
  get<T = any>(path: string, headers?: Record<string, string>): Promise<KeyedAnswer<T>>;
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<KeyedAnswer<T>>;
  del<T = any>(path: string): Promise<KeyedAnswer<T>>;
  send<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<KeyedAnswer<T>>;
}

/** Requests with these headers (e.g. bearer(key), or {} for none), each answer held to the served contract. */
export function as(t: Pick<TestServer, 'url'>, auth: Record<string, string>): Client {
  const send = async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(t.url + path, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...auth, ...headers },
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    const type = response.headers.get('content-type');
    await checkAgainstContract(t.url, method, path, response.status, type, parsed);
    return { status: response.status, body: parsed as T, headers: response.headers, text };
  };
  return {
    get: (path, headers) => send('GET', path, undefined, headers),
    post: (path, body, headers) => send('POST', path, body, headers),
    del: (path) => send('DELETE', path),
    send,
  };
}

/** A well-formed key no one was ever given: its prefix and 43 random base62 characters. */
export function wrongKey(prefix = 'sp_sk_'): string {
  const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let out = prefix;
  for (let i = 0; i < 43; i++) out += base62[randomInt(62)];
  return out;
}

export interface KeyInfo {
  /** key_NNNN */
  id: string;
  /** The key itself (shown once, when it was made). */
  key: string;
  principal: string;
  scopes: KeyScope[];
  /** The creation answer's body (the only one that shows the key). */
  created: Record<string, unknown>;
}

/** A request's caller as the service would make it from the key (for `allows`). */
export function callerOf(info: KeyInfo): Caller {
  const kind: PrincipalKind =
    info.principal === 'operator' ? 'operator' : info.principal.startsWith('seller_') ? 'seller' : 'closer';
  return { principal: info.principal, kind, keyId: info.id, scopes: new Set(info.scopes) };
}

export interface TenantObjects {
  sellerId: string;
  /** A deal escalated to a human closer (mandate staffing closer: human, industry saas), its gig open. */
  escalatedDealId: string;
  openGigId: string;
  /** A deal closed won by closer 1 through its gig: a settlement and a payout exist. */
  wonDealId: string;
  wonGigId: string;
}

export interface KeysFixture {
  t: TestServer;
  operator: KeyInfo;
  sellerA: KeyInfo;
  sellerB: KeyInfo;
  /** Seller A's agent: deals:read deals:propose. */
  agentA: KeyInfo;
  /** Seller A's read-only key: deals:read. */
  readA: KeyInfo;
  closer1: KeyInfo;
  closer2: KeyInfo;
  /** Closer 1's key with gigs:read only. */
  closerRead: KeyInfo;
  A: TenantObjects;
  B: TenantObjects;
  /** An operator's webhook. */
  webhookId: string;
  /** Every key made, each creation answer's body included (to look for key texts elsewhere). */
  keys: KeyInfo[];
  /** Requests as a key (or an Authorization header of one's own). */
  by(who: KeyInfo | string): Client;
}

export const HUMAN_CLOSER = { staffing: { closer: 'human' } };

export const dealBody = (name: string, mandate?: Record<string, unknown>, listValueUsd = 20_000) => ({
  account: { name, industry: 'saas', actor: 'B2B' },
  listValueUsd,
  ...(mandate ? { mandate } : {}),
});

export function expectStatus(answer: Answer, status: number, what: string): void {
  assert.equal(
    answer.status,
    status,
    `${what}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`,
  );
}

/** Makes a key through the API with the caller's key; answers it with its text. */
export async function makeKey(
  t: TestServer,
  callerKey: string,
  body: { name: string; principal?: string; scopes?: string[]; expiresAt?: string; policy?: unknown },
): Promise<KeyInfo> {
  const answer = await as(t, bearer(callerKey)).post('/keys', body);
  expectStatus(answer, 201, `POST /keys ${JSON.stringify(body)}`);
  return {
    id: answer.body.id,
    key: answer.body.key,
    principal: answer.body.principal,
    scopes: answer.body.scopes,
    created: answer.body,
  };
}

/** The operator's key (OPERATOR_KEY) as a KeyInfo. */
async function operatorInfo(t: TestServer): Promise<KeyInfo> {
  const keys = await as(t, bearer(OP)).get('/keys?principal=operator');
  expectStatus(keys, 200, 'GET /keys?principal=operator');
  const own = keys.body.find((k: { name: string }) => k.name === 'OPERATOR_KEY');
  assert.ok(own, 'the OPERATOR_KEY key is listed');
  return { id: own.id, key: OP, principal: 'operator', scopes: ['admin'], created: {} };
}

export async function makeSeller(t: TestServer, name: string): Promise<string> {
  const answer = await as(t, bearer(OP)).post('/sellers', { name });
  expectStatus(answer, 201, 'POST /sellers');
  return answer.body.id;
}

export async function enrolCloser(t: TestServer, name: string, industries = ['saas']): Promise<string> {
  const answer = await as(t, bearer(OP)).post('/closers/closers', { name, industries });
  expectStatus(answer, 201, 'POST /closers/closers');
  return answer.body.id;
}

// ── builders of fresh objects ─────────────────────────────────────────────────────────────────

/**
 * D-69: a proposal held for approval: a fresh deal of the Seller's, advanced through `agentKey`,
 * a key of the same Seller whose policy holds every move (`allowedMoves: []`). Answers the approval's id.
 */
export async function heldApproval(t: TestServer, sellerKey: string, agentKey: string): Promise<string> {
  const dealId = await freshDeal(t, sellerKey, 'Held deal');
  const answer = await as(t, bearer(agentKey)).post(`${t.prefix}/deals/${dealId}/advance`, {});
  expectStatus(answer, 202, 'POST /deals/{id}/advance through a key whose policy holds it');
  return answer.body.approval.id;
}

/** A fresh deal at sourced. */
export async function freshDeal(t: TestServer, sellerKey: string, name = 'Fresh deal'): Promise<string> {
  const answer = await as(t, bearer(sellerKey)).post(`${t.prefix}/deals`, dealBody(name));
  expectStatus(answer, 201, 'POST /deals');
  return answer.body.id;
}

/** A fresh deal escalated to a human closer, and its open gig. */
export async function escalatedDeal(
  t: TestServer,
  sellerKey: string,
  name = 'Escalated deal',
): Promise<{ dealId: string; gigId: string }> {
  const answer = await as(t, bearer(sellerKey)).post(`${t.prefix}/sell`, dealBody(name, HUMAN_CLOSER));
  expectStatus(answer, 201, 'POST /sell');
  assert.equal(answer.body.escalated, true, 'the sell escalated');
  return { dealId: answer.body.deal.id, gigId: answer.body.gig.id };
}

/** A fresh escalated deal whose gig the closer claimed. */
export async function claimedGig(
  t: TestServer,
  sellerKey: string,
  closerKey: string,
): Promise<{ dealId: string; gigId: string }> {
  const made = await escalatedDeal(t, sellerKey, 'Claimed deal');
  const claim = await as(t, bearer(closerKey)).post(`/closers/gigs/${made.gigId}/claim`, {});
  expectStatus(claim, 200, 'claim');
  return made;
}

/** A fresh deal closed won by the closer through its gig. */
export async function wonDeal(
  t: TestServer,
  sellerKey: string,
  closerKey: string,
): Promise<{ dealId: string; gigId: string }> {
  const made = await claimedGig(t, sellerKey, closerKey);
  const closer = as(t, bearer(closerKey));
  for (const advanceTo of ['proposal', 'negotiation']) {
    expectStatus(await closer.post(`/closers/gigs/${made.gigId}/advance`, { advanceTo }), 200, `gig to ${advanceTo}`);
  }
  const won = await closer.post(`/closers/gigs/${made.gigId}/advance`, { advanceTo: 'closed_won', valueUsd: 20_000 });
  expectStatus(won, 200, 'gig to closed_won');
  return made;
}

/** A fresh deal closed lost by the Seller. */
export async function lostDeal(t: TestServer, sellerKey: string): Promise<string> {
  const id = await freshDeal(t, sellerKey, 'Lost deal');
  const lost = await as(t, bearer(sellerKey)).post(`${t.prefix}/deals/${id}/advance`, { advanceTo: 'closed_lost' });
  expectStatus(lost, 200, 'advance to closed_lost');
  return id;
}

/** A fresh stalled deal (gone_dark) whose nurturer gig the closer claimed. */
export async function claimedNurturerGig(
  t: TestServer,
  sellerKey: string,
  closerKey: string,
): Promise<{ dealId: string; gigId: string }> {
  const seller = as(t, bearer(sellerKey));
  const dealId = await freshDeal(t, sellerKey, 'Stalled deal');
  expectStatus(await seller.post(`${t.prefix}/deals/${dealId}/signals`, { signals: ['gone_dark'] }), 200, 'gone_dark');
  const escalation = await seller.post(`${t.prefix}/deals/${dealId}/advance`, {});
  expectStatus(escalation, 200, 'advance a stalled deal');
  assert.equal(escalation.body.escalated, true, `a stalled deal escalates: ${JSON.stringify(escalation.body)}`);
  assert.equal(escalation.body.role, 'nurturer');
  const gigId = escalation.body.gig.id;
  expectStatus(await as(t, bearer(closerKey)).post(`/closers/gigs/${gigId}/claim`, {}), 200, 'claim nurturer gig');
  return { dealId, gigId };
}

/** A fresh webhook (delivering nowhere that answers) made with `key` (D-58: its principal's). */
export async function freshWebhook(t: TestServer, key: string): Promise<string> {
  const answer = await as(t, bearer(key)).post('/webhooks', { url: 'http://127.0.0.1:9/hook', types: ['demo.reset'] });
  expectStatus(answer, 201, 'POST /webhooks');
  return answer.body.id;
}

async function tenant(t: TestServer, sellerId: string, sellerKey: string, closerKey: string): Promise<TenantObjects> {
  const escalated = await escalatedDeal(t, sellerKey);
  const won = await wonDeal(t, sellerKey, closerKey);
  return {
    sellerId,
    escalatedDealId: escalated.dealId,
    openGigId: escalated.gigId,
    wonDealId: won.dealId,
    wonGigId: won.gigId,
  };
}

/** Builds the fixture on a keys-mode server (see the top of this file). */
export async function keysFixture(t: TestServer): Promise<KeysFixture> {
  const operator = await operatorInfo(t);
  const sellerAId = await makeSeller(t, 'Seller A (fictional)');
  const sellerBId = await makeSeller(t, 'Seller B (fictional)');
  const sellerA = await makeKey(t, OP, { name: 'seller A', principal: sellerAId });
  const sellerB = await makeKey(t, OP, { name: 'seller B', principal: sellerBId });
  // Made by Seller A itself: a Seller's key issues keys of its own principal.
  const agentA = await makeKey(t, sellerA.key, { name: 'agent of A', scopes: ['deals:read', 'deals:propose'] });
  const readA = await makeKey(t, sellerA.key, { name: 'reader of A', scopes: ['deals:read'] });
  const closer1Id = await enrolCloser(t, 'Closer One (fictional)');
  const closer2Id = await enrolCloser(t, 'Closer Two (fictional)');
  const closer1 = await makeKey(t, OP, { name: 'closer 1', principal: closer1Id });
  const closer2 = await makeKey(t, OP, { name: 'closer 2', principal: closer2Id });
  const closerRead = await makeKey(t, closer1.key, { name: 'closer 1 reader', scopes: ['gigs:read'] });
  const A = await tenant(t, sellerAId, sellerA.key, closer1.key);
  const B = await tenant(t, sellerBId, sellerB.key, closer1.key);
  const webhookId = await freshWebhook(t, sellerA.key);
  return {
    t,
    operator,
    sellerA,
    sellerB,
    agentA,
    readA,
    closer1,
    closer2,
    closerRead,
    A,
    B,
    webhookId,
    keys: [sellerA, sellerB, agentA, readA, closer1, closer2, closerRead],
    by: (who) => as(t, bearer(typeof who === 'string' ? who : who.key)),
  };
}

// ── nothing changed ───────────────────────────────────────────────────────────────────────────

export interface Snapshot {
  /** The feed's last seq (the operator's reading). */
  lastSeq: number;
  /** Every closer and deal, as the operator counts them (keys mode's /health has no counts, D-3). */
  counts: { closers: number; deals: number };
  keys: number;
  sellers: number;
  webhooks: number;
}

async function readAll(t: TestServer, path: string): Promise<unknown[]> {
  const op = as(t, bearer(OP));
  const all: unknown[] = [];
  let next: string | undefined = `${path}?limit=1000`;
  while (next !== undefined) {
    const page: Answer = await op.get(next);
    expectStatus(page, 200, `GET ${next}`);
    all.push(...page.body);
    const link = page.headers.get('link');
    next = link ? (/<[^>]*?(\/[^>]*)>; rel="next"/.exec(link)?.[1] ?? undefined) : undefined;
  }
  return all;
}

/** What a refusal must leave as it was: the feed's last seq, the counts of closers, deals, keys, Sellers, webhooks. */
export async function snapshot(t: TestServer, from = 0): Promise<Snapshot> {
  const op = as(t, bearer(OP));
  let after = from;
  for (;;) {
    const page = await op.get(`/events?after=${after}&limit=1000`);
    expectStatus(page, 200, 'GET /events');
    if (page.body.events.length === 0) break;
    after = page.body.nextAfter;
  }
  const webhooks = await op.get('/webhooks');
  return {
    lastSeq: after,
    counts: {
      closers: (await readAll(t, '/closers/closers')).length,
      deals: (await readAll(t, `${t.prefix}/deals`)).length,
    },
    keys: (await readAll(t, '/keys')).length,
    sellers: (await readAll(t, '/sellers')).length,
    webhooks: webhooks.body.length,
  };
}

/** Asserts nothing changed since `before`: no new event, the same counts. */
export async function assertUnchanged(t: TestServer, before: Snapshot, what: string): Promise<void> {
  const events = await as(t, bearer(OP)).get(`/events?after=${before.lastSeq}&limit=10`);
  assert.deepEqual(events.body.events, [], `${what}: no new event`);
  const now = await snapshot(t, before.lastSeq);
  assert.deepEqual(now, before, `${what}: nothing changed`);
}

// ── key policies and approvals (D-68 to D-70) ─────────────────────────────────────────────────

const OPEN_STAGES = ['sourced', 'qualified', 'meeting', 'proposal', 'negotiation'] as const;

/** A fresh deal moved to `stage` by `sellerKey` (a key without a policy), a stage at a time. */
export async function dealAt(
  t: TestServer,
  sellerKey: string,
  stage: (typeof OPEN_STAGES)[number],
  listValueUsd = 20_000,
): Promise<string> {
  const seller = as(t, bearer(sellerKey));
  const created = await seller.post(`${t.prefix}/deals`, dealBody(`Deal at ${stage}`, undefined, listValueUsd));
  expectStatus(created, 201, 'POST /deals');
  for (const next of OPEN_STAGES.slice(1, OPEN_STAGES.indexOf(stage) + 1)) {
    const moved = await seller.post(`${t.prefix}/deals/${created.body.id}/advance`, { advanceTo: next });
    expectStatus(moved, 200, `advance to ${next}`);
  }
  return created.body.id;
}

/** Every event about a deal, oldest first, as the operator reads the feed. */
export async function eventsOfDeal(
  t: TestServer,
  dealId: string,
): Promise<{ seq: number; type: string; data: any; actor?: any }[]> {
  const page = await as(t, bearer(OP)).get(`/events?dealId=${dealId}&limit=1000`);
  expectStatus(page, 200, 'GET /events?dealId=');
  return page.body.events;
}
