// D-61 step by step: a proposal the gate refused (an agent's deal advance, a closer's gig advance
// or revival, refused with a refusal of kind gate or conflict) is one new record, matching the
// refusal, and one `proposal.refused` event carrying it, and changed nothing else; every other
// step (a dry run, a replay, a 400, 404 or 412, an accepted move, the platform's timers)
// records nothing and publishes no such event.
import type { ActorRef } from '../domain/access.ts';
import { isKeptRefusal, KEPT_PER_DEAL, type RefusedProposal } from '../domain/proposals.ts';
import type { Refusal } from '../domain/refusal.ts';
import type { StoredEvent } from '../store/store.ts';
import type { ProposalTally } from './report.ts';
import type { SimViolation } from './tenancy.ts';
import { type Proposed, type SimSnapshot, same } from './world.ts';

/** The steps that send a proposal. */
export const PROPOSAL_KINDS = new Set(['advance', 'gig-advance', 'revive']);

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

/** Whether the step's answer must be on the record: a refusal of the gate of a proposal run for real. */
export function recordsRefusal(f: StepFacts): boolean {
  return (
    !f.failed &&
    f.refusal !== undefined &&
    PROPOSAL_KINDS.has(f.kind) &&
    isKeptRefusal(f.refusal) &&
    f.proposed !== undefined &&
    f.proposed.mode !== 'dry'
  );
}

/**
 * The refused proposals a step left, held to what it did; counts each into `tally`. Answers
 * the violations and the new record, if the step rightly made one.
 */
export function checkRecords(
  f: StepFacts,
  tally: ProposalTally,
): { violations: SimViolation[]; record?: RefusedProposal } {
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

  if (!recordsRefusal(f)) {
    if (added.length > 0 || dropped.length > 0 || !same(before.proposals, after.proposals))
      problem(
        `the refused proposals changed (${added.map((p) => `+${p.id} ${p.code}`).join(', ')}${dropped.map((p) => ` -${p.id}`).join(',')})`,
        ...added.map((p) => p.id),
      );
    if (published.length > 0)
      problem(`published ${published.length} proposal.refused (${published.map((e) => e.seq)})`);
    if (refusal && proposed && PROPOSAL_KINDS.has(kind) && !f.failed) {
      const why = proposed.mode === 'dry' && isKeptRefusal(refusal) ? 'dry' : refusal.code;
      tally.unrecorded[why] = (tally.unrecorded[why] ?? 0) + 1;
    }
    return { violations: out };
  }

  const r = refusal as Refusal;
  const p = proposed as Proposed;
  if (added.length !== 1) {
    problem(`${added.length} records, not one (${added.map((x) => x.id).join(', ')})`, ...added.map((x) => x.id));
    return { violations: out };
  }
  const record = added[0] as RefusedProposal;
  const dealId = p.dealId ?? before.gigs.find((g) => g.id === p.gigId)?.dealId;
  const deal = before.deals.find((d) => d.id === dealId);
  const expected: Record<string, unknown> = {
    dealId,
    gigId: p.gigId,
    by: p.by,
    actor: f.actor,
    proposal: p.proposal,
    stage: deal?.stage,
    code: r.code,
    reason: r.message,
    sellerId: deal?.sellerId,
  };
  for (const [field, value] of Object.entries(expected)) {
    const got = (record as unknown as Record<string, unknown>)[field];
    if (!same(got, value))
      problem(`${record.id}'s ${field} is ${JSON.stringify(got)}, not ${JSON.stringify(value)}`, record.id);
  }
  // Newest first: the record, then what was there, less a deal's oldest past KEPT_PER_DEAL.
  const ofDeal = before.proposals.filter((x) => x.dealId === record.dealId);
  const mayDrop = ofDeal.length >= KEPT_PER_DEAL ? ofDeal[ofDeal.length - 1]?.id : undefined;
  if (dropped.length > 1 || (dropped.length === 1 && dropped[0]?.id !== mayDrop))
    problem(`dropped ${dropped.map((x) => x.id).join(', ')} (the deal had ${ofDeal.length})`, record.id);
  if (!same(after.proposals, [record, ...before.proposals.filter((x) => left.has(x.id))]))
    problem(`the records are not the new one before the ones there were`, record.id);
  const newest = before.proposals[0];
  if (newest && (record.at < newest.at || Number(record.id.slice(5)) <= Number(newest.id.slice(5))))
    problem(`${record.id} at ${record.at} does not follow ${newest.id} at ${newest.at}`, record.id);
  // Its event, and nothing else.
  const event = f.events[0]?.event;
  if (f.events.length !== 1 || event?.type !== 'proposal.refused')
    problem(`published ${f.events.map((e) => e.event.type).join(', ') || 'nothing'}, not one proposal.refused`);
  else {
    const closerId = record.actor?.principal.startsWith('closer_') ? record.actor.principal : undefined;
    const audience = { sellerId: event.sellerId, closerId: event.closerId, actor: event.actor };
    if (!same(event.data, record) || event.at !== record.at)
      problem(`its event's data ${JSON.stringify(event.data)} at ${event.at} is not ${record.id}`, record.id);
    if (!same(audience, { sellerId: deal?.sellerId, closerId, actor: record.actor }))
      problem(`its event is for ${JSON.stringify(audience)}`, record.id);
  }
  tally.refused++;
  tally.byKind[kind] ??= {};
  const byKind = tally.byKind[kind] as Record<string, number>;
  byKind[r.code] = (byKind[r.code] ?? 0) + 1;
  tally.byCode[r.code] = (tally.byCode[r.code] ?? 0) + 1;
  return { violations: out, record };
}
