// The approvals of held proposals, step by step (D-69, D-70, D-275): an approval appears only as
// a proposal through a key with a policy that holds is held (pending, no votes, the key and its
// actor, the deal's version, the limits passed and what the policy says of approvals and time),
// with one `approval.requested`; it changes only by a vote of a decision, or by ending once:
// approved or refused at its last vote, denied by a denial, expired or superseded by the timers,
// superseded at a decision or by a newer hold of its deal; each end but a refusal publishes its
// event once, and a decided approval never changes again. A deal has at most one pending
// approval, and after the timers ran none pending is past its time or behind its deal.
import type { Approval } from '../domain/approvals.ts';
import type { KeyPolicy, LimitCheck } from '../domain/policy.ts';
import type { Deal } from '../domain/records.ts';
import { closesByKey, dayOf, usedOn } from './policies.ts';
import type { Cast } from './principals.ts';
import type { StepFacts } from './refusal-records.ts';
import type { ApprovalTally } from './report.ts';
import type { SimViolation } from './tenancy.ts';
import { HOUR, same, type World } from './world.ts';

/** The steps that decide an approval (approval-commands.ts). */
export const DECISION_KINDS = new Set(['approve', 'deny', 'approve-race']);
/** The steps that run the timers, which end approvals past their time or behind their deal. */
const TIMER_KINDS = new Set(['clock', 'timers']);
/** The steps whose proposal a key's policy may hold: the agent's deal advances, and a sell (D-274). */
const HOLDING_KINDS = new Set(['advance', 'policy-advance', 'approval-move', 'sell', 'policy-sell']);
/** The sells among them: the deal held is the one the sell made, moved as far as the policy let it. */
const SELL_KINDS = new Set(['sell', 'policy-sell']);

type Status = Approval['status'];
/** How each kind of step may end an approval. */
function endsOf(kind: string): ReadonlySet<Status> {
  if (kind === 'deny') return new Set(['denied', 'superseded']);
  if (DECISION_KINDS.has(kind)) return new Set(['approved', 'superseded', 'refused']);
  if (TIMER_KINDS.has(kind)) return new Set(['expired', 'superseded']);
  if (HOLDING_KINDS.has(kind)) return new Set(['superseded']);
  return new Set();
}

/** An approval without what a decision changes. */
const fixed = ({ approvals: _, status: _s, decidedAt: _d, reason: _r, ...rest }: Approval) => rest;

export async function checkApprovals(world: World, f: StepFacts): Promise<SimViolation[]> {
  const { kind, before, after, events } = f;
  const cast = world.cast as Cast;
  const tally = world.report.approvals as ApprovalTally;
  const out: SimViolation[] = [];
  const problem = (message: string, ...ids: string[]) =>
    out.push({ invariant: 'approvals', message: `${kind}: ${message}`, ids });
  const dealsBefore = new Map(before.deals.map((d) => [d.id, d]));
  const dealsAfter = new Map(after.deals.map((d) => [d.id, d]));
  const later = new Map(after.approvals.map((a) => [a.id, a]));
  const known = new Set(before.approvals.map((a) => a.id));
  const made = after.approvals.filter((a) => !known.has(a.id));
  // The approval events of the step, each to be accounted for by what happened to its approval.
  const published = events.filter((e) => e.event.type.startsWith('approval.'));
  const accounted = new Set<number>();
  const eventOf = (type: string, approval: Approval) => {
    const matching = published.filter((e) => e.event.type === type && (e.event.data as Approval).id === approval.id);
    for (const e of matching) accounted.add(e.seq);
    if (matching.length !== 1 || !same(matching[0]?.event.data, approval))
      problem(`${approval.id} ${approval.status}: ${matching.length} ${type} events, not one with it`, approval.id);
  };

  for (const was of before.approvals) {
    const now = later.get(was.id);
    if (now === undefined) {
      problem(`${was.id} disappeared`, was.id);
      continue;
    }
    // The store hands out the record it keeps: one not replaced is the same object.
    if (was === now || same(was, now)) continue;
    if (was.status !== 'pending') {
      problem(`${was.id}, ${was.status} already, changed: ${JSON.stringify(now)}`, was.id);
      continue;
    }
    if (!same(fixed(was), fixed(now))) problem(`${was.id} changed beyond its decision: ${JSON.stringify(now)}`, was.id);
    const decided = DECISION_KINDS.has(kind) && world.deciding?.approvalId === was.id;
    const votes = now.approvals.slice(was.approvals.length);
    if (!same(now.approvals.slice(0, was.approvals.length), was.approvals) || (votes.length > 0 && !decided))
      problem(
        `${was.id}'s votes went from ${JSON.stringify(was.approvals)} to ${JSON.stringify(now.approvals)}`,
        was.id,
      );
    const callers = world.deciding?.callers ?? [];
    for (const vote of votes) {
      const by = callers.find((c) =>
        c.userId !== undefined ? c.userId === vote.by.userId : c.keyId === vote.by.keyId,
      );
      if (by === undefined)
        problem(`${was.id} has a vote by ${JSON.stringify(vote.by)}, no decider of the step`, was.id);
    }
    if (now.status === 'pending') {
      if (now.approvals.length >= now.approvalsRequired) problem(`${was.id} has every vote and is pending`, was.id);
      continue;
    }
    if (!endsOf(kind).has(now.status) || (DECISION_KINDS.has(kind) && !decided))
      problem(`${was.id} became ${now.status}`, was.id);
    if (now.decidedAt === undefined) problem(`${was.id} is ${now.status} with no decidedAt`, was.id);
    tally.ended[now.status]++;
    const deal = dealsAfter.get(was.dealId) as Deal;
    const moved = dealsBefore.get(was.dealId)?.version !== deal.version;
    switch (now.status) {
      case 'approved':
        if (
          now.approvals.length !== now.approvalsRequired ||
          !moved ||
          dealsBefore.get(was.dealId)?.version !== was.dealVersion
        )
          problem(
            `${was.id} approved with ${now.approvals.length} of ${now.approvalsRequired} votes, the deal at ${deal.version}`,
            was.id,
          );
        break;
      case 'denied':
        if (now.reason !== world.deciding?.reason) problem(`${was.id} denied for ${now.reason}`, was.id);
        break;
      case 'expired':
        if (deal.version !== was.dealVersion || (now.decidedAt ?? 0) < was.expiresAt)
          problem(`${was.id} expired at ${now.decidedAt} (due ${was.expiresAt}), its deal at ${deal.version}`, was.id);
        break;
      case 'superseded':
        if (deal.version === was.dealVersion)
          problem(`${was.id} superseded though its deal is where it was held`, was.id);
        if (HOLDING_KINDS.has(kind) && !made.some((a) => a.dealId === was.dealId))
          problem(`${was.id} superseded by no newer hold of its deal`, was.id);
        break;
      case 'refused':
        if (f.refusal === undefined || now.approvals.length !== now.approvalsRequired)
          problem(`${was.id} refused at no last vote (${f.refusal?.code})`, was.id);
        break;
    }
    if (now.status !== 'refused') eventOf(`approval.${now.status}`, now);
  }

  if (made.length > 0) held(world, f, made, problem, eventOf);
  for (const e of published)
    if (!accounted.has(e.seq)) problem(`published ${e.event.type} (${e.seq}) for nothing that happened`);

  const pendingOf = new Map<string, string>();
  for (const a of after.approvals.filter((x) => x.status === 'pending')) {
    const other = pendingOf.get(a.dealId);
    if (other !== undefined) problem(`${a.dealId} has two pending approvals: ${other} and ${a.id}`, a.id, other);
    pendingOf.set(a.dealId, a.id);
  }
  // D-275: the timers leave no approval pending behind its deal or past its time.
  const ran = kind === 'timers' || (kind === 'clock' && !f.refusal);
  if (ran && !f.failed) {
    const now = await world.platformNow();
    for (const a of after.approvals.filter((x) => x.status === 'pending')) {
      const deal = dealsAfter.get(a.dealId);
      if (deal?.version !== a.dealVersion || a.expiresAt <= now)
        problem(
          `${a.id} is pending after the timers (deal at ${deal?.version}, held at ${a.dealVersion}; due ${a.expiresAt}, now ${now})`,
          a.id,
        );
    }
  }
  // A policy's refusal: the key refuses over a limit, or the deal is above what it may act on.
  if (f.refusal?.code === 'POLICY_LIMIT' && HOLDING_KINDS.has(kind) && !f.failed) {
    tally.policyRefused++;
    const policy = cast.keys.find((k) => k.id === world.stepCaller?.keyId)?.policy;
    const limits = (f.refusal as { limits?: LimitCheck[] }).limits ?? [];
    if (policy === undefined || (policy.onLimit !== 'refuse' && !limits.some((l) => l.limit === 'maxDealValueUsd')))
      problem(`refused POLICY_LIMIT through ${world.stepCaller?.keyId} (policy ${JSON.stringify(policy)})`);
  }
  return out;
}

/** The approvals a step made: each a hold, by the step's key, as its policy says (D-69). */
function held(
  world: World,
  f: StepFacts,
  made: Approval[],
  problem: (message: string, ...ids: string[]) => void,
  eventOf: (type: string, approval: Approval) => void,
): void {
  const caller = world.stepCaller;
  const key = (world.cast as Cast).keys.find((k) => k.id === caller?.keyId && caller?.userId === undefined);
  const policy = key?.policy;
  (world.report.approvals as ApprovalTally).held += made.length;
  if (made.length > 1) problem(`held ${made.length} proposals at once`, ...made.map((a) => a.id));
  if (!HOLDING_KINDS.has(f.kind) || f.refusal !== undefined || f.failed || f.proposed?.mode === 'dry')
    problem(`made approvals ${made.map((a) => a.id)}`, ...made.map((a) => a.id));
  if (key === undefined || policy === undefined || policy.onLimit === 'refuse') {
    problem(`held through ${caller?.keyId ?? caller?.userId}, which has policy ${JSON.stringify(policy)}`);
    return;
  }
  const used = closesByKey(f.before.deals);
  for (const a of made) {
    const deal = f.after.deals.find((d) => d.id === a.dealId);
    const expected = {
      keyId: key.id,
      principal: key.principal,
      keyCreatedBy: key.createdBy,
      actor: { principal: key.principal, keyId: key.id },
      sellerId: deal?.sellerId,
      dealVersion: deal?.version,
      approvalsRequired: policy.approvalsRequired ?? 1,
      approvals: [],
      status: 'pending',
      lasts: (policy.approvalTtlHours ?? 24) * HOUR,
      ...(SELL_KINDS.has(f.kind) ? {} : { proposal: f.proposed?.proposal }),
    };
    const got = { ...a, lasts: a.expiresAt - a.requestedAt };
    for (const [field, value] of Object.entries(expected)) {
      const actual = (got as unknown as Record<string, unknown>)[field];
      if (!same(actual, value))
        problem(`${a.id}'s ${field} is ${JSON.stringify(actual)}, not ${JSON.stringify(value)}`, a.id);
    }
    // Nothing of the deal moved by the held move (a sell's deal stops where the policy allowed).
    const was = f.before.deals.find((d) => d.id === a.dealId);
    if (!SELL_KINDS.has(f.kind) && !same(was, deal)) problem(`${a.dealId} changed though its move was held`, a.id);
    const day = usedOn(used, key.id, dayOf(a.requestedAt));
    if (a.limits.length === 0) problem(`${a.id} passed no limit`, a.id);
    for (const check of a.limits) {
      const wrong = overWrongly(check, policy, day.closes, day.closedValueCents);
      if (wrong) problem(`${a.id}'s limit ${JSON.stringify(check)}: ${wrong}`, a.id);
    }
    eventOf('approval.requested', a);
  }
}

/** What is wrong with a limit a hold says it passed, as the key's policy and its day's closes say. */
function overWrongly(check: LimitCheck, policy: KeyPolicy, closes: number, value: number): string | undefined {
  if (check.within) return 'it is within';
  switch (check.limit) {
    case 'closesPerDay':
      if (check.allowed !== policy.closesPerDay) return `the policy allows ${policy.closesPerDay}`;
      if (check.used !== closes) return `the key closed ${closes} that day`;
      return (check.value as number) > (check.allowed as number) ? undefined : 'it is within';
    case 'closedValuePerDayUsd':
      if (check.allowed !== policy.closedValuePerDayCents) return `the policy allows ${policy.closedValuePerDayCents}`;
      if (check.used !== value) return `the key closed ${value} that day`;
      return (check.value as number) > (check.allowed as number) ? undefined : 'it is within';
    case 'minCloseValuePct':
      if (check.allowed !== policy.minCloseValuePct) return `the policy asks ${policy.minCloseValuePct}`;
      // The share is shown to four decimals: a close a cent short may show as the least itself.
      return (check.value as number) <= (check.allowed as number) ? undefined : 'it is within';
    case 'allowedMoves':
      if (!same(check.allowed, policy.allowedMoves)) return `the policy allows ${policy.allowedMoves}`;
      return policy.allowedMoves?.includes(check.value as never) ? 'it is allowed' : undefined;
    case 'maxDealValueUsd':
      return 'a deal above maxDealValueUsd is refused, never held';
  }
}
