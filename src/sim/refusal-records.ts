// D-61 step by step: a proposal the gate refused (an agent's deal advance, a closer's gig advance
// or revival, refused with a refusal of kind gate, conflict or policy) is one new record,
// matching the refusal, and one `proposal.refused` event carrying it, and changed nothing else;
// every other step (a dry run, a replay, a 400, 404 or 412, an accepted move, the platform's
// timers) records nothing and publishes no such event. A held proposal (D-69, D-70) is kept when
// it ends refused: denied (APPROVAL_DENIED, the approver's reason), expired (APPROVAL_EXPIRED) or
// refused as it ran again at its last vote: a record of the proposal as it was held, by its key,
// written by the step that ended it (a decision, or the timers), not by the one that proposed.
import type { ActorRef } from '../domain/access.ts';
import type { Approval } from '../domain/approvals.ts';
import { isKeptRefusal, KEPT_PER_DEAL, type RefusedProposal } from '../domain/proposals.ts';
import type { Refusal } from '../domain/refusal.ts';
import type { StoredEvent } from '../store/store.ts';
import type { ProposalTally } from './report.ts';
import type { SimViolation } from './tenancy.ts';
import { type Proposed, type SimSnapshot, same } from './world.ts';

/** The steps that send a proposal. */
export const PROPOSAL_KINDS = new Set(['advance', 'gig-advance', 'revive', 'policy-advance', 'approval-move']);

export interface StepFacts {
  kind: string;
  before: SimSnapshot;
  after: SimSnapshot;
  /** What the step published. */
  events: readonly StoredEvent[];
  /** The step's answer, when it was a refusal. */
  refusal: Refusal | undefined;
  proposed: Proposed | undefined;
  /** Whether the step's unit failed (an injected fault) or threw. */
  failed: boolean;
  /** The actor of the step's request (keys mode), none in the demo. */
  actor: ActorRef | undefined;
}

/**
 * Whether the step's answer must be on the record: a refusal of the gate of a proposal run for
 * real. APPROVAL_PENDING (D-69) is not the gate's: the move was within the gate and would be held,
 * but the deal already waits on an approval; nothing is kept.
 */
export function recordsRefusal(f: StepFacts): boolean {
  return (
    !f.failed &&
    f.refusal !== undefined &&
    PROPOSAL_KINDS.has(f.kind) &&
    isKeptRefusal(f.refusal) &&
    f.refusal.code !== 'APPROVAL_PENDING' &&
    f.proposed !== undefined &&
    f.proposed.mode !== 'dry'
  );
}

const codeOf: Partial<Record<Approval['status'], string>> = {
  denied: 'APPROVAL_DENIED',
  expired: 'APPROVAL_EXPIRED',
};

/**
 * The records the step owes the held proposals it ended refused (denied, expired, refused at the
 * last vote), oldest approval first (the timers end them in that order), as each must read.
 */
function endedRecords(f: StepFacts): Record<string, unknown>[] {
  const was = new Map(f.before.approvals.map((a) => [a.id, a]));
  return f.after.approvals
    .filter((a) => was.get(a.id)?.status === 'pending' && (a.status in codeOf || a.status === 'refused'))
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((a) => {
      const deal = f.after.deals.find((d) => d.id === a.dealId);
      return {
        dealId: a.dealId,
        gigId: undefined,
        by: 'agent',
        // A refusal at the last vote names who approved it, beside the key (D-70).
        actor: a.actor,
        proposal: a.proposal,
        stage: deal?.stage,
        code: codeOf[a.status] ?? f.refusal?.code,
        reason: a.reason,
        at: a.decidedAt,
        sellerId: deal?.sellerId,
      };
    });
}

/**
 * The refused proposals a step left, held to what it did; counts each into `tally`. Answers the
 * violations and the new records the step rightly made, oldest first.
 */
export function checkRecords(
  f: StepFacts,
  tally: ProposalTally,
): { violations: SimViolation[]; records: RefusedProposal[] } {
  const { kind, before, after, refusal, proposed } = f;
  const out: SimViolation[] = [];
  const problem = (message: string, ...ids: string[]) =>
    out.push({
      invariant: 'proposals',
      message: `${kind}${refusal ? ` refused ${refusal.code}` : ''}: ${message}`,
      ids,
    });
  const known = new Set(before.proposals.map((p) => p.id));
  const added = after.proposals.filter((p) => !known.has(p.id));
  const left = new Set(after.proposals.map((p) => p.id));
  const dropped = before.proposals.filter((p) => !left.has(p.id));
  const published = f.events.filter((e) => e.event.type === 'proposal.refused');

  let expected: Record<string, unknown>[];
  if (recordsRefusal(f)) {
    const p = proposed as Proposed;
    const dealId = p.dealId ?? before.gigs.find((g) => g.id === p.gigId)?.dealId;
    const deal = before.deals.find((d) => d.id === dealId);
    const r = refusal as Refusal;
    expected = [
      {
        dealId,
        gigId: p.gigId,
        by: p.by,
        actor: f.actor,
        proposal: p.proposal,
        stage: deal?.stage,
        code: r.code,
        reason: r.message,
        sellerId: deal?.sellerId,
      },
    ];
    // A refused proposal publishes its record's event, and nothing else.
    if (f.events.length !== 1)
      problem(`published ${f.events.map((e) => e.event.type).join(', ') || 'nothing'}, not one proposal.refused`);
  } else {
    expected = f.failed ? [] : endedRecords(f);
    if (refusal && proposed && PROPOSAL_KINDS.has(kind) && !f.failed) {
      const why = proposed.mode === 'dry' && isKeptRefusal(refusal) ? 'dry' : refusal.code;
      tally.unrecorded[why] = (tally.unrecorded[why] ?? 0) + 1;
    }
  }
  if (added.length !== expected.length) {
    problem(
      `${added.length} records (${added.map((p) => `${p.id} ${p.code}`).join(', ')}), not ${expected.length}`,
      ...added.map((x) => x.id),
    );
    return { violations: out, records: [] };
  }
  if (expected.length === 0) {
    if (dropped.length > 0 || !same(before.proposals, after.proposals))
      problem(`the refused proposals changed (${dropped.map((p) => ` -${p.id}`).join(',')})`);
    if (published.length > 0)
      problem(`published ${published.length} proposal.refused (${published.map((e) => e.seq)})`);
    return { violations: out, records: [] };
  }
  // Oldest first, each to its expected record.
  const records = [...added].reverse();
  records.forEach((record, i) => {
    for (const [field, value] of Object.entries(expected[i] as Record<string, unknown>)) {
      const got = (record as unknown as Record<string, unknown>)[field];
      const alike =
        field === 'actor'
          ? (got as ActorRef | undefined)?.principal === (value as ActorRef | undefined)?.principal &&
            (got as ActorRef | undefined)?.keyId === (value as ActorRef | undefined)?.keyId &&
            (got as ActorRef | undefined)?.userId === (value as ActorRef | undefined)?.userId
          : same(got, value);
      if (!alike) problem(`${record.id}'s ${field} is ${JSON.stringify(got)}, not ${JSON.stringify(value)}`, record.id);
    }
    // Its event, carrying it, for the deal's Seller and the closer that proposed it.
    const events = published.filter((e) => (e.event.data as RefusedProposal).id === record.id);
    const event = events[0]?.event;
    if (events.length !== 1 || event === undefined)
      problem(`${events.length} proposal.refused events of it`, record.id);
    else {
      const closerId = record.actor?.principal.startsWith('closer_') ? record.actor.principal : undefined;
      const audience = { sellerId: event.sellerId, closerId: event.closerId, actor: event.actor };
      if (!same(event.data, record) || event.at !== record.at)
        problem(`its event's data ${JSON.stringify(event.data)} at ${event.at} is not ${record.id}`, record.id);
      const deal = before.deals.find((d) => d.id === record.dealId);
      if (!same(audience, { sellerId: deal?.sellerId, closerId, actor: record.actor }))
        problem(`its event is for ${JSON.stringify(audience)}`, record.id);
    }
    tally.refused++;
    tally.byKind[kind] ??= {};
    const byKind = tally.byKind[kind] as Record<string, number>;
    byKind[record.code] = (byKind[record.code] ?? 0) + 1;
    tally.byCode[record.code] = (tally.byCode[record.code] ?? 0) + 1;
  });
  if (published.length !== records.length)
    problem(`published ${published.length} proposal.refused for ${records.length} records`);
  // Newest first: the records, then what was there, less a deal's oldest past KEPT_PER_DEAL.
  const mayDrop = new Set<string>();
  for (const record of records) {
    const ofDeal = before.proposals.filter((x) => x.dealId === record.dealId && !mayDrop.has(x.id));
    if (ofDeal.length >= KEPT_PER_DEAL) mayDrop.add(ofDeal[ofDeal.length - 1]?.id as string);
  }
  if (dropped.some((x) => !mayDrop.has(x.id))) problem(`dropped ${dropped.map((x) => x.id).join(', ')}`);
  if (!same(after.proposals, [...added, ...before.proposals.filter((x) => left.has(x.id))]))
    problem(`the records are not the new ones before the ones there were`, ...added.map((x) => x.id));
  const newest = before.proposals[0];
  const first = records[0] as RefusedProposal;
  if (newest && (first.at < newest.at || Number(first.id.slice(5)) <= Number(newest.id.slice(5))))
    problem(`${first.id} at ${first.at} does not follow ${newest.id} at ${newest.at}`, first.id);
  return { violations: out, records };
}
