// Each write's result as the answer a door gives: status, body and the Location of what a 201
// created (D-4, D-38). HTTP sends it, the demo MCP tools wrap it, and under an idempotency key
// its bytes are what is stored and replayed (D-37), so all three agree by construction.

import type { Notification, NotificationSettings } from '../domain/notifications.ts';
import type { Deal, Seller } from '../domain/records.ts';
import type { User } from '../domain/users.ts';
import type { Webhook } from '../domain/webhooks.ts';
import type { IssuedKey } from '../service/accounts.ts';
import type { Decision } from '../service/approvals.ts';
import type { Answer, RenderedAnswer } from '../service/idempotency.ts';
import type { PayoutRun, RefundOutcome } from '../service/ledger-commands.ts';
import type { AdvanceOutcome, CloserWithLedger, DryRunOutcome, GigOutcome, Ranked } from '../service/outcomes.ts';
import type { ClockMove } from '../service/platform.ts';
import type { Result } from '../service/result.ts';
import { keyView, sellerView } from './accounts.ts';
import { approvalView, heldView } from './approvals.ts';
import { type DryRunnable, dryRunView } from './dry-run.ts';
import { refusalBody, statusOf } from './errors.ts';
import { stringify } from './exact-json.ts';
import { payoutRunView, refundView } from './ledger.ts';
import { notificationView } from './notifications.ts';
import { closerView, dealView, escalationView, gigOutcomeView, gigView, iso, matchView } from './records.ts';
import { userView } from './users.ts';
import { webhookCreatedView } from './webhooks.ts';

/** Where the closer marketplace is served (the deal service's prefix is configuration). */
export const MARKETPLACE_PREFIX = '/closers';

export type { Answer } from '../service/idempotency.ts';

/** A deal's version as an entity tag (strong: the version names exactly one state of the deal). */
export const etagOf = (deal: Deal) => `"${deal.version}"`;

export const outcomeView = (outcome: AdvanceOutcome) =>
  outcome.kind === 'deal'
    ? dealView(outcome.deal)
    : outcome.kind === 'held'
      ? heldView(outcome.approval)
      : escalationView(outcome.escalation);

/** D-69: a held proposal answers 202: accepted for a person's decision, nothing moved. */
const statusOfOutcome = (outcome: AdvanceOutcome, moved: number) => (outcome.kind === 'held' ? 202 : moved);

/** A result's answer: the refusal's status and body, or what `then` makes of the value. */
function answer<T>(result: Result<T>, then: (value: T) => Answer): Answer {
  return result.ok ? then(result.value) : { status: statusOf(result.refusal), body: refusalBody(result.refusal) };
}

/**
 * D-48: a dry run's answer. Accepted: 200 with the records as they would be (no Location and no
 * ETag: nothing was created or changed); refused: the very answer the real call (`real`) gives.
 */
export function dryRunAnswer<T extends DryRunnable>(
  result: Result<DryRunOutcome<T>>,
  real: (refused: Result<never>) => Answer,
): Answer {
  return result.ok ? { status: 200, body: dryRunView(result.value) } : real(result);
}

export const rendered = (a: Answer): RenderedAnswer => {
  const stored: RenderedAnswer = { status: a.status, body: stringify(a.body) };
  if (a.location !== undefined) stored.location = a.location;
  if (a.etag !== undefined) stored.etag = a.etag;
  return stored;
};

/** The answer of every write of the demo, for a deal service under `prefix`. */
export function writeAnswers(prefix: string) {
  const dealAt = (id: string) => `${prefix}/deals/${id}`;
  const created = (deal: Deal): Answer => ({
    status: 201,
    body: dealView(deal),
    location: dealAt(deal.id),
    etag: etagOf(deal),
  });
  const gigOutcome = (result: Result<GigOutcome>) =>
    answer(result, (o) => ({ status: 200, body: gigOutcomeView(o), etag: etagOf(o.deal) }));
  const gigOnly = (result: Result<GigOutcome>) => answer(result, (o) => ({ status: 200, body: gigView(o.gig) }));
  const deal = (result: Result<Deal>) => answer(result, (d) => ({ status: 200, body: dealView(d), etag: etagOf(d) }));
  const dealOf = (o: AdvanceOutcome) => (o.kind === 'escalation' ? o.escalation.deal : o.deal);
  return {
    createDeal: (result: Result<Deal>) => answer(result, created),
    sell: (result: Result<AdvanceOutcome>) =>
      answer(result, (o) => ({
        status: statusOfOutcome(o, 201),
        body: outcomeView(o),
        location: dealAt(dealOf(o).id),
        etag: etagOf(dealOf(o)),
      })),
    advanceDeal: (result: Result<AdvanceOutcome>) =>
      answer(result, (o) => ({ status: statusOfOutcome(o, 200), body: outcomeView(o), etag: etagOf(dealOf(o)) })),
    reportSignals: deal,
    deescalateDeal: deal,
    editDeal: deal,
    reengageDeal: (result: Result<Deal>) => answer(result, created),
    enrolCloser: (result: Result<CloserWithLedger>) =>
      answer(result, (c) => ({
        status: 201,
        body: closerView(c),
        location: `${MARKETPLACE_PREFIX}/closers/${c.closer.id}`,
      })),
    matchClosers: (result: Result<Ranked>) => answer(result, (r) => ({ status: 200, body: r.map(matchView) })),
    claimGig: gigOutcome,
    advanceGig: gigOutcome,
    reviveGig: gigOutcome,
    releaseGig: gigOnly,
    expireGig: gigOnly,
    resetDemo: (result: Result<string[]>) =>
      answer(result, (seeded) => ({ status: 200, body: { reset: true as const, seeded } })),
    advanceDemoClock: (result: Result<ClockMove>) =>
      answer(result, ({ now }) => ({ status: 200, body: { now: iso(now) } })),
    createWebhook: (result: Result<Webhook>) =>
      answer(result, (hook) => ({ status: 201, body: webhookCreatedView(hook), location: `/webhooks/${hook.id}` })),
    deleteWebhook: (result: Result<true>) => answer(result, () => ({ status: 204, body: undefined })),
    createdUser: (result: Result<User>) =>
      answer(result, (user) => ({ status: 201, body: userView(user), location: `/users/${user.id}` })),
    user: (result: Result<User>) => answer(result, (user) => ({ status: 200, body: userView(user) })),
    createSeller: (result: Result<Seller>) =>
      answer(result, (seller) => ({ status: 201, body: sellerView(seller), location: `/sellers/${seller.id}` })),
    /** A new key (created or rolled): the only answer that ever holds its text. */
    issuedKey: (result: Result<IssuedKey>) =>
      answer(result, ({ key, text }) => ({ status: 201, body: keyView(key, text), location: `/keys/${key.id}` })),
    /** A key changed (revoked, its policy set): the key as it now is. */
    changedKey: (result: Result<IssuedKey>) => answer(result, ({ key }) => ({ status: 200, body: keyView(key) })),
    /** D-72: a person's notification, and their mail settings. */
    notification: (result: Result<Notification>) => answer(result, (n) => ({ status: 200, body: notificationView(n) })),
    notificationSettings: (result: Result<NotificationSettings>) =>
      answer(result, (settings) => ({ status: 200, body: settings })),
    /** D-81: a refund, created (its deal's refunds are listed at the Location). */
    refund: (result: Result<RefundOutcome>) =>
      answer(result, ({ refund }) => ({
        status: 201,
        body: refundView(refund),
        location: `${dealAt(refund.dealId)}/refunds`,
      })),
    /** D-80: a payout run: what it paid (nothing, when no closer had a balance above zero). */
    payoutRun: (result: Result<PayoutRun>) => answer(result, (run) => ({ status: 200, body: payoutRunView(run) })),
    /** D-70: an approval short of the last vote, a denial, or what the held proposal committed. */
    decision: (result: Result<Decision>) =>
      answer(result, (d) => ({
        status: 200,
        body: d.kind === 'approval' ? approvalView(d.approval) : outcomeView(d.outcome),
      })),
  };
}

export type WriteAnswers = ReturnType<typeof writeAnswers>;
