// Keys mode's door, generated from the table of operations (D-50, D-53..D-55, D-62): every operation
// of src/operations/table.ts is sent without a key, with an Authorization that is no bearer key,
// with a key no one was given, with each kind of key (the operator's, Seller A's full, agent
// and read-only keys, closer 1's full and read-only keys, and Seller B's on Seller A's objects),
// and by a person of every role signed in to the console (Seller A's admin, manager, rep and
// viewer, closer 1's closer, the operator's operator), each held to its role's scopes.
// What each key gets is computed from the operation's declared scope with `allows`: 403
// INSUFFICIENT_SCOPE naming the scope when it does not allow; otherwise the operation's own
// answer for that caller (never 401, 403 or 500). Seller B on Seller A's object is answered
// exactly as an unknown id is. Every refusal changes nothing: no new event, the same counts.
// An operation the table gains without an entry in SPECS below fails here, and so does one
// without a declared scope.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { allows, type Caller, type PrincipalKind } from '../../src/domain/access.ts';
import { roleScopes, type UserRole } from '../../src/domain/users.ts';
import { type Operation, pathOf } from '../../src/operations/operation.ts';
import { OPERATIONS } from '../../src/operations/table.ts';
import type { TestServer } from '../support/http.ts';
import {
  as,
  assertUnchanged,
  bearer,
  callerOf,
  claimedGig,
  claimedNurturerGig,
  dealBody,
  escalatedDeal,
  freshDeal,
  freshWebhook,
  heldApproval,
  type KeyedAnswer,
  type KeysFixture,
  keysFixture,
  lostDeal,
  makeKey,
  OP,
  snapshot,
  startKeysServer,
  wonDeal,
  wrongKey,
} from '../support/keys.ts';
import { type Mailbox, startMailbox } from '../support/mailbox.ts';
import { person } from '../support/people.ts';

const REALM = 'Bearer realm="sales-pipeline"';

type KeyWho = 'operator' | 'sellerA' | 'agentA' | 'readA' | 'closer1' | 'closerRead' | 'sellerB';
/** D-62: people of each role, signed in to the console: Seller A's four, closer 1's, the operator's. */
type PersonWho = 'adminA' | 'managerA' | 'repA' | 'viewerA' | 'closerPerson' | 'operatorPerson';
type Who = KeyWho | PersonWho;
const WHO: readonly Who[] = [
  'operator',
  'sellerA',
  'agentA',
  'readA',
  'closer1',
  'closerRead',
  'sellerB',
  'adminA',
  'managerA',
  'repA',
  'viewerA',
  'closerPerson',
  'operatorPerson',
];
/** The key a person's answers follow where a spec names one (`expect`): of the same principal. */
const LIKE: Record<PersonWho, KeyWho> = {
  adminA: 'sellerA',
  managerA: 'sellerA',
  repA: 'sellerA',
  viewerA: 'sellerA',
  closerPerson: 'closer1',
  operatorPerson: 'operator',
};
const isPersonWho = (who: Who): who is PersonWho => who in LIKE;

interface Spec {
  /** The path's id: an object of Seller A's (made afresh for each key a write is allowed to). */
  subject?: (fx: KeysFixture) => Promise<string> | string;
  /** An id of the same kind that never existed. */
  unknown?: string;
  /** Whether the subject is a tenant's (Seller B's key then gets what an unknown id gets). */
  owned?: boolean;
  /** A minimal valid body, for a caller of this kind (made again for each call). */
  body?: (fx: KeysFixture, kind: PrincipalKind) => unknown;
  /** The status an allowed key gets, where it is not the operation's success status. */
  expect?: Partial<Record<Who, number>>;
  /** Its allowed calls run after every other operation's (a reset wipes the fixture). */
  last?: true;
  /** A query string it needs (without `?`), or one made from the fixture. */
  query?: string | ((fx: KeysFixture) => string);
}

const A = (fx: KeysFixture) => fx.sellerA.key;
const C1 = (fx: KeysFixture) => fx.closer1.key;
const freshKeyOfA = async (fx: KeysFixture) =>
  (await makeKey(fx.t, OP, { name: 'matrix subject', principal: fx.A.sellerId })).id;
/** Another principal's key is unknown to a closer (D-54). */
const KEY_OF_A_TO_A_CLOSER = { closer1: 404, closerRead: 404 } as const;
/** Seller A's key whose policy holds every move (D-69), made once, and a fresh approval of it. */
let holding: Promise<string> | undefined;
const heldApprovalOfA = async (fx: KeysFixture) => {
  holding ??= makeKey(fx.t, OP, {
    name: 'held agent of A',
    principal: fx.A.sellerId,
    policy: { allowedMoves: [] },
  }).then((made) => made.key);
  return heldApproval(fx.t, A(fx), await holding);
};
/** A person of Seller A, invited afresh by the operator. */
let invited = 0;
const freshUserOfA = async (fx: KeysFixture) => {
  const answer = await as(fx.t, bearer(OP)).post('/users', {
    email: `matrix-${++invited}@seller-a.example`,
    name: 'Matrix Person',
    role: 'viewer',
    principal: fx.A.sellerId,
  });
  assert.equal(answer.status, 201, answer.text);
  return (answer.body as { id: string }).id;
};
/** The role a caller of each kind may give a person of its own principal. */
const ROLE_OF_KIND: Record<PrincipalKind, string> = { operator: 'operator', seller: 'viewer', closer: 'closer' };
/** GET /users/me: a person's own; a key is no person (404). */
const KEYS_ARE_NO_PERSON = {
  operator: 404,
  sellerA: 404,
  agentA: 404,
  readA: 404,
  closer1: 404,
  closerRead: 404,
  sellerB: 404,
  adminA: 200,
  managerA: 200,
  repA: 200,
  viewerA: 200,
  closerPerson: 200,
  operatorPerson: 200,
} as const;

/** A notification no one has: every caller, person or key, is answered 404. */
const NOBODY_HAS_IT = Object.fromEntries(WHO.map((who) => [who, 404])) as Record<Who, number>;

/** One entry per operation of the table: a new operation without one fails this file. */
const SPECS: Record<string, Spec> = {
  getHealth: {},
  resetDemo: { body: () => ({}), last: true },
  advanceDemoClock: { body: () => ({ advanceHours: 0 }) },
  createDeal: { body: () => dealBody('Matrix deal') },
  sell: { body: () => dealBody('Matrix sale') },
  listDeals: {},
  getDeal: { subject: (fx) => fx.A.wonDealId, unknown: 'deal_9999', owned: true },
  editDeal: {
    subject: (fx) => freshDeal(fx.t, A(fx)),
    unknown: 'deal_9999',
    owned: true,
    body: () => ({ listValueUsd: 21_000 }),
  },
  advanceDeal: { subject: (fx) => freshDeal(fx.t, A(fx)), unknown: 'deal_9999', owned: true, body: () => ({}) },
  reportSignals: {
    subject: (fx) => freshDeal(fx.t, A(fx)),
    unknown: 'deal_9999',
    owned: true,
    body: () => ({ signals: ['procurement_involved'] }),
  },
  getSettlement: { subject: (fx) => fx.A.wonDealId, unknown: 'deal_9999', owned: true },
  // D-61: the refused proposals; a closer's key reads the deals of its gigs only (Seller A's won
  // deal was closed by closer 1's gig, so it reads that deal's list: its own proposals).
  listProposals: {},
  getProposalSummary: {},
  // D-73: the insights, over what each caller may see.
  getPipelineInsight: {},
  getFunnelInsight: {},
  getVelocityInsight: {},
  getPerformanceInsight: { query: 'by=executor' },
  getMarketplaceInsight: {},
  getMoneyInsight: {},
  listDealProposals: { subject: (fx) => fx.A.wonDealId, unknown: 'deal_9999', owned: true },
  reengageDeal: { subject: (fx) => lostDeal(fx.t, A(fx)), unknown: 'deal_9999', owned: true, body: () => ({}) },
  deescalateDeal: {
    subject: async (fx) => (await escalatedDeal(fx.t, A(fx))).dealId,
    unknown: 'deal_9999',
    owned: true,
    body: () => ({}),
  },
  enrolCloser: { body: () => ({ name: 'Matrix Closer (fictional)', industries: ['saas'] }) },
  listClosers: {},
  getCloser: { subject: (fx) => fx.closer1.principal, unknown: 'closer_9999', owned: false },
  matchClosers: { body: () => ({ industry: 'saas', valueUsd: 20_000, role: 'closer' }) },
  listGigs: {},
  getGig: { subject: (fx) => fx.A.wonGigId, unknown: 'gig_9999', owned: true },
  claimGig: {
    subject: async (fx) => (await escalatedDeal(fx.t, A(fx))).gigId,
    unknown: 'gig_9999',
    owned: true,
    body: () => ({}),
  },
  advanceGig: {
    subject: async (fx) => (await claimedGig(fx.t, A(fx), C1(fx))).gigId,
    unknown: 'gig_9999',
    owned: true,
    body: () => ({ advanceTo: 'proposal' }),
  },
  reviveGig: {
    subject: async (fx) => (await claimedNurturerGig(fx.t, A(fx), C1(fx))).gigId,
    unknown: 'gig_9999',
    owned: true,
    body: () => ({}),
  },
  releaseGig: {
    subject: async (fx) => (await claimedGig(fx.t, A(fx), C1(fx))).gigId,
    unknown: 'gig_9999',
    owned: true,
    body: () => ({}),
  },
  expireGig: {
    subject: async (fx) => (await claimedGig(fx.t, A(fx), C1(fx))).gigId,
    unknown: 'gig_9999',
    owned: true,
    body: () => ({}),
  },
  listEvents: {},
  createWebhook: { body: () => ({ url: 'http://127.0.0.1:9/matrix', types: ['demo.reset'] }) },
  listWebhooks: {},
  // D-58: Seller A's webhooks; a closer's key with webhooks:manage sees none of them.
  getWebhook: { subject: (fx) => fx.webhookId, unknown: 'whk_9999', owned: true, expect: { closer1: 404 } },
  deleteWebhook: {
    subject: (fx) => freshWebhook(fx.t, A(fx)),
    unknown: 'whk_9999',
    owned: true,
    expect: { closer1: 404 },
  },
  listWebhookDeliveries: { subject: (fx) => fx.webhookId, unknown: 'whk_9999', owned: true, expect: { closer1: 404 } },
  createSeller: { body: () => ({ name: 'Matrix Seller (fictional)' }) },
  listSellers: {},
  getSeller: { subject: (fx) => fx.A.sellerId, unknown: 'seller_9999', owned: true },
  createKey: { body: () => ({ name: 'matrix key' }) },
  listKeys: {},
  getKey: { subject: (fx) => fx.readA.id, unknown: 'key_9999', owned: true, expect: KEY_OF_A_TO_A_CLOSER },
  rollKey: {
    subject: freshKeyOfA,
    unknown: 'key_9999',
    owned: true,
    body: () => ({ graceSeconds: 60 }),
    expect: KEY_OF_A_TO_A_CLOSER,
  },
  revokeKey: { subject: freshKeyOfA, unknown: 'key_9999', owned: true, body: () => ({}), expect: KEY_OF_A_TO_A_CLOSER },
  setKeyPolicy: {
    subject: freshKeyOfA,
    unknown: 'key_9999',
    owned: true,
    body: () => ({ policy: { closesPerDay: 5 } }),
    expect: KEY_OF_A_TO_A_CLOSER,
  },
  // D-69, D-70: Seller A's approvals; its people and keys with approvals:decide decide them.
  listApprovals: {},
  getApproval: { subject: heldApprovalOfA, unknown: 'apr_9999', owned: true },
  approveApproval: { subject: heldApprovalOfA, unknown: 'apr_9999', owned: true, body: () => ({ note: 'fine' }) },
  // D-72: a person's inbox; a key is no person (404), as for GET /users/me.
  listNotifications: { expect: KEYS_ARE_NO_PERSON },
  getNotificationSummary: { expect: KEYS_ARE_NO_PERSON },
  readNotification: { subject: () => 'ntf_9999', body: () => ({}), expect: NOBODY_HAS_IT },
  getNotificationSettings: { expect: KEYS_ARE_NO_PERSON },
  setNotificationSettings: {
    body: () => ({ email: { approvals: true, outcomes: true, gigs: false } }),
    expect: KEYS_ARE_NO_PERSON,
  },
  denyApproval: { subject: heldApprovalOfA, unknown: 'apr_9999', owned: true, body: () => ({ reason: 'not now' }) },
  createUser: {
    body: (_fx, kind) => ({
      email: `matrix-new-${++invited}@example.test`,
      name: 'Matrix Invitee',
      role: ROLE_OF_KIND[kind],
    }),
  },
  listUsers: {},
  getMe: { expect: KEYS_ARE_NO_PERSON },
  getUser: { subject: freshUserOfA, unknown: 'usr_9999', owned: true, expect: KEY_OF_A_TO_A_CLOSER },
  setUserRole: {
    subject: freshUserOfA,
    unknown: 'usr_9999',
    owned: true,
    body: () => ({ role: 'rep' }),
    expect: KEY_OF_A_TO_A_CLOSER,
  },
  disableUser: {
    subject: freshUserOfA,
    unknown: 'usr_9999',
    owned: true,
    body: () => ({}),
    expect: KEY_OF_A_TO_A_CLOSER,
  },
  enableUser: {
    subject: freshUserOfA,
    unknown: 'usr_9999',
    owned: true,
    body: () => ({}),
    expect: KEY_OF_A_TO_A_CLOSER,
  },
  // D-79 to D-82: the ledger. A refund is of a fresh deal of Seller A's closed won by closer 1;
  // its refunds are read by the closer of the deal too (D-280). A Seller's account and statement
  // are its own: to anyone else (a closer, Seller B) they are unknown (404).
  refundDeal: {
    subject: async (fx) => (await wonDeal(fx.t, A(fx), C1(fx))).dealId,
    unknown: 'deal_9999',
    owned: true,
    body: () => ({ amountUsd: 100, reason: 'the matrix refunds a part' }),
  },
  listRefunds: { subject: (fx) => fx.A.wonDealId, unknown: 'deal_9999', owned: true },
  runPayouts: { body: () => ({ reference: 'matrix batch' }) },
  listPayouts: {},
  getBalance: {
    query: (fx) => `account=seller:${fx.A.sellerId}`,
    expect: { closer1: 404, closerRead: 404, sellerB: 404 },
  },
  listTransfers: {},
  getCloserStatement: { subject: (fx) => fx.closer1.principal, unknown: 'closer_9999', query: 'month=2026-11' },
  getSellerStatement: { subject: (fx) => fx.A.sellerId, unknown: 'seller_9999', owned: true, query: 'month=2026-11' },
};

/** The operation's success status (its first documented one). */
const successOf = (op: Operation) => Number(Object.keys(op.responses)[0]);

const withId = (op: Operation, fx: KeysFixture, id: string | undefined) => {
  const spec = SPECS[op.id]?.query;
  const query = typeof spec === 'function' ? spec(fx) : spec;
  const path = pathOf(op, fx.t.prefix) + (query === undefined ? '' : `?${query}`);
  if (!path.includes('{id}')) return path;
  assert.ok(id !== undefined, `${op.id}: its path takes an id, so its spec needs a subject`);
  return path.replace('{id}', encodeURIComponent(id));
};

/** The same answer, the id it was about written as <id>. */
const idless = (answer: KeyedAnswer, id: string) => ({
  status: answer.status,
  contentType: answer.headers.get('content-type'),
  body: answer.text.replaceAll(id, '<id>'),
});

/** Last, then: the operations whose allowed calls would wipe the fixture. */
const ORDERED = [...OPERATIONS].sort((x, y) => Number(!!SPECS[x.id]?.last) - Number(!!SPECS[y.id]?.last));

describe('keys mode: every operation of the table, with every kind of key and every role of person', () => {
  let t: TestServer;
  let fx: KeysFixture;
  let mailbox: Mailbox;
  const people = {} as Record<PersonWho, { cookie: string; caller: Caller }>;
  /** What a request of `who` carries: a bearer key, or a person's console cookie. */
  const authOf = (who: Who): Record<string, string> =>
    isPersonWho(who) ? { cookie: people[who].cookie } : bearer(fx[who].key);
  const callerOfWho = (who: Who): Caller => (isPersonWho(who) ? people[who].caller : callerOf(fx[who]));

  before(async () => {
    // D-3: the demo's reset and clock are served in keys mode only with DEMO_CONTROLS=on; on here,
    // so that their scope is held like every other operation's.
    mailbox = await startMailbox();
    t = await startKeysServer({ demoControls: true, smtpUrl: mailbox.url, mailRetryBaseMs: 50 });
    fx = await keysFixture(t);
    const roles: [PersonWho, string, string][] = [
      ['adminA', 'admin', fx.A.sellerId],
      ['managerA', 'manager', fx.A.sellerId],
      ['repA', 'rep', fx.A.sellerId],
      ['viewerA', 'viewer', fx.A.sellerId],
      ['closerPerson', 'closer', fx.closer1.principal],
      ['operatorPerson', 'operator', 'operator'],
    ];
    for (const [who, role, principal] of roles) {
      const made = await person(t, OP, mailbox, { email: `${who.toLowerCase()}@matrix.example`, role, principal });
      const kind: PrincipalKind =
        principal === 'operator' ? 'operator' : principal.startsWith('seller_') ? 'seller' : 'closer';
      const caller: Caller = { principal, kind, scopes: new Set(roleScopes(role as UserRole)), userId: made.id };
      people[who] = { cookie: made.cookie, caller };
    }
  });
  after(async () => {
    await t?.close();
    await mailbox?.close();
  });

  it('the table and SPECS name the same operations', () => {
    const ids = OPERATIONS.map((op) => op.id);
    assert.deepEqual(
      Object.keys(SPECS).filter((id) => !ids.includes(id)),
      [],
      'SPECS entries of no operation',
    );
    assert.equal(new Set(ids).size, ids.length, 'operation ids are distinct');
  });

  for (const op of ORDERED) {
    it(`${op.method} ${op.path} (${op.id}): scope ${JSON.stringify(op.scope)}`, async () => {
      const spec = SPECS[op.id];
      assert.ok(spec, `operation ${op.id} has no entry in SPECS: add its subject and a minimal valid body`);
      assert.ok(
        op.scope === 'open' || op.scope === 'key' || (Array.isArray(op.scope) && op.scope.length > 0),
        `operation ${op.id} declares no scope`,
      );
      const method = op.method;
      const shared = spec.subject ? await spec.subject(fx) : undefined;
      const path = withId(op, fx, shared);
      const send = (auth: Record<string, string>, at = path, kind: PrincipalKind = 'seller') =>
        as(t, auth).send(method, at, spec.body?.(fx, kind));

      // ── refusals at the door: nothing changes ────────────────────────────────────────────────
      let state = await snapshot(t);
      const unchanged = async (what: string) => {
        await assertUnchanged(t, state, `${op.id}, ${what}`);
      };

      const noKeys: [string, Record<string, string>][] = [
        ['no Authorization', {}],
        ['Authorization: Basic xyz', { authorization: 'Basic xyz' }],
        ['Authorization: Bearer alone', { authorization: 'Bearer' }],
      ];
      for (const [what, auth] of noKeys) {
        const answer = await send(auth);
        if (op.scope === 'open') {
          assert.equal(answer.status, 200, `${op.id} is open: ${what} answers 200`);
          continue;
        }
        assert.equal(answer.status, 401, `${what}: ${answer.text}`);
        assert.equal(answer.body.code, 'UNAUTHENTICATED', what);
        assert.equal(answer.headers.get('www-authenticate'), REALM, what);
        await unchanged(what);
      }
      const wrong = await send(bearer(wrongKey()));
      if (op.scope === 'open') assert.equal(wrong.status, 200);
      else {
        assert.equal(wrong.status, 401, `a wrong key: ${wrong.text}`);
        assert.equal(wrong.body.code, 'INVALID_KEY');
        assert.equal(wrong.headers.get('www-authenticate'), `${REALM}, error="invalid_token"`);
        await unchanged('a wrong key');
      }

      const allowedTo: Who[] = [];
      for (const who of WHO) {
        const caller: Caller = callerOfWho(who);
        const verdict = allows(op.scope, caller);
        if (verdict.ok) {
          allowedTo.push(who);
          continue;
        }
        const answer = await send(authOf(who), path, caller.kind);
        assert.equal(answer.status, 403, `${who} lacks ${verdict.requiredScope}: ${answer.text}`);
        assert.deepEqual(
          Object.keys(answer.body).sort(),
          ['code', 'error', 'requiredScope'],
          `${who}: the body is {error, code, requiredScope}`,
        );
        assert.equal(answer.body.code, 'INSUFFICIENT_SCOPE', who);
        assert.equal(answer.body.requiredScope, verdict.requiredScope, who);
        assert.equal(
          answer.headers.get('www-authenticate'),
          `${REALM}, error="insufficient_scope", scope="${verdict.requiredScope}"`,
          who,
        );
        await unchanged(`${who} without the scope`);
      }

      // ── Seller B on Seller A's object: what an unknown id gets ──────────────────────────────
      if (spec.owned && allowedTo.includes('sellerB') && shared !== undefined) {
        const unknownId = spec.unknown as string;
        assert.ok(unknownId, `${op.id}: an unknown id of the subject's kind`);
        const theirs = await send(bearer(fx.sellerB.key));
        await unchanged("Seller B's key on Seller A's object");
        const none = await send(bearer(fx.sellerB.key), withId(op, fx, unknownId));
        await unchanged("Seller B's key on an unknown id");
        assert.equal(theirs.status, 404, `Seller B on A's ${shared}: ${theirs.text}`);
        assert.deepEqual(idless(theirs, shared), idless(none, unknownId), 'answered exactly as an unknown id');
      }

      // ── allowed: the operation's own answer for that caller ─────────────────────────────────
      for (const who of allowedTo) {
        if (who === 'sellerB' && spec.owned) continue;
        // A write acts on an object of its own, so that no key's call meets another's effects.
        const subject = op.kind === 'write' && spec.subject ? await spec.subject(fx) : shared;
        const answer = await send(authOf(who), withId(op, fx, subject), callerOfWho(who).kind);
        const expected =
          spec.expect?.[who] ?? (isPersonWho(who) ? spec.expect?.[LIKE[who]] : undefined) ?? successOf(op);
        assert.ok(
          ![401, 403].includes(answer.status) && answer.status < 500,
          `${who}: ${answer.status} ${answer.text}`,
        );
        assert.equal(answer.status, expected, `${who} on ${op.id}: ${answer.text.slice(0, 400)}`);
        state = await snapshot(t);
      }
    });
  }
});
