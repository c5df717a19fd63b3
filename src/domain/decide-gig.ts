// The rulebook of a gig (D-14 to D-17): claims, a closer's moves of the deal through the gate,
// revival of a stalled deal, releases, expired claims and lapsed gigs, and the payout a
// fulfilled gig earns (D-24).
import type { DecisionContext, PipelineCommand } from './commands.ts';
import {
  accept,
  checkCloser,
  type Decision,
  entry,
  findGig,
  moveEvents,
  reject,
  withClaimedGig,
  withDeal,
  withLiveDeal,
  withNote,
} from './decision.ts';
import type { PipelineEvent } from './events.ts';
import { commissionCents, rule } from './gate.ts';
import { usdToCents } from './money.ts';
import type { Deal, Gig, PayoutLine } from './records.ts';
import { isActiveGig } from './records.ts';
import { isRefusal, refuse } from './refusal.ts';
import { GONE_DARK, owningRole, stageRole } from './stages.ts';
import { daysToMs, type PipelineState } from './state.ts';

export function claimGig(state: PipelineState, gigId: string, closerId: string, ctx: DecisionContext): Decision {
  const gig = findGig(state, gigId);
  if (isRefusal(gig)) return reject(gig);
  const unknownCloser = checkCloser(state, closerId);
  if (unknownCloser) return reject(unknownCloser);
  if (gig.status !== 'open')
    return reject(refuse.conflict('GIG_NOT_OPEN', `Gig ${gig.id} is ${gig.status}, not open.`));
  return withLiveDeal(state, gig.dealId, (deal) =>
    accept([
      { type: 'GigClaimed', gigId: gig.id, closerId, at: ctx.now, dueAt: ctx.now + ctx.claimTtlMs },
      entry(deal, 'service', `The ${gig.role} gig was claimed.`, ctx.now, true, deal.stage, {
        gigId: gig.id,
        closerId,
      }),
    ]),
  );
}

export function advanceGig(
  gig: Gig,
  deal: Deal,
  command: Extract<PipelineCommand, { type: 'AdvanceGig' }>,
  ctx: DecisionContext,
): Decision {
  const to = command.advanceTo;
  const closerId = gig.closerId ?? '';
  const illegal = (why: string) =>
    reject(refuse.gate('GATE_ILLEGAL_MOVE', `A ${gig.role} gig cannot propose ${to}: ${why}`));

  // What each kind of gig may propose (D-14), before the gate rules on the move itself.
  if (gig.role === 'nurturer' && to !== 'closed_lost') {
    return illegal(
      'a nurturer gig revives the deal (POST /closers/gigs/{id}/revive) or confirms it dead (closed_lost).',
    );
  }
  if (gig.role === 'setter' && to === 'closed_won')
    return illegal('a setter works the deal up to meeting, or closed_lost.');
  if (gig.role !== owningRole(deal)) return illegal(`the deal is owned by the ${owningRole(deal)} role now.`);

  const pct = gig.pricing.kind === 'commission' ? gig.pricing.pct : undefined;
  const valueCents = to === 'closed_won' && command.valueUsd !== undefined ? usdToCents(command.valueUsd) : undefined;
  const ruling = rule(deal, { to, valueCents, commissionPct: pct });
  if (!ruling.ok) return reject(ruling.refusal);

  const about = { gigId: gig.id, closerId };
  const events = moveEvents(deal, ruling.to, ruling.valueCents, 'human', command.note, ctx.now, about);
  const completes =
    ruling.to === 'closed_won' ||
    ruling.to === 'closed_lost' ||
    (gig.role === 'setter' && stageRole(ruling.to) !== 'setter');
  if (!completes) {
    events.push({ type: 'GigMoved', gigId: gig.id, at: ctx.now, dueAt: ctx.now + ctx.claimTtlMs });
    return accept(events);
  }
  const outcome = ruling.to === 'closed_won' || ruling.to === 'closed_lost' ? ruling.to : 'meeting';
  events.push({
    type: 'GigFulfilled',
    gigId: gig.id,
    outcome,
    ...(ruling.to === 'closed_won' ? { finalValueCents: ruling.valueCents } : {}),
    at: ctx.now,
  });
  // Pay: a closer on a close won (commission), a setter reaching meeting and a nurturer
  // confirming the deal dead (their fee). A closer's or setter's close lost settles nothing.
  let amountCents: number | undefined;
  if (gig.pricing.kind === 'commission' && ruling.to === 'closed_won') {
    amountCents = commissionCents(ruling.valueCents ?? 0, gig.pricing.pct);
  } else if (gig.pricing.kind === 'fee' && (gig.role === 'nurturer' || outcome === 'meeting')) {
    amountCents = gig.pricing.amountCents;
  }
  if (amountCents !== undefined) events.push(...payout(gig, deal, amountCents, ctx.now));
  return accept(events);
}

/**
 * D-24: the ledger line of a payout. A payout of $0 (a 0% commission, a fee of 0) writes no
 * line: the ledger records money paid; the fulfilled gig still counts in the Register.
 */
function payout(gig: Gig, deal: Deal, amountCents: number, at: number): PipelineEvent[] {
  if (amountCents === 0) return [];
  const line: PayoutLine = {
    at,
    closerId: gig.closerId ?? '',
    gigId: gig.id,
    dealId: deal.id,
    role: gig.role,
    kind: gig.pricing.kind,
    amountCents,
  };
  return [{ type: 'PayoutPosted', line }];
}

export function clearGoneDark(
  state: PipelineState,
  command: Extract<PipelineCommand, { type: 'ClearGoneDark' }>,
  ctx: DecisionContext,
): Decision {
  const gig = findGig(state, command.gigId);
  if (isRefusal(gig)) return reject(gig);
  if (gig.role !== 'nurturer') {
    return reject(
      refuse.conflict('GIG_NOT_NURTURER', `Gig ${gig.id} is a ${gig.role} gig; only nurturer gigs revive.`),
    );
  }
  return withClaimedGig(state, command.gigId, command.closerId, (claimed, deal) => {
    const events: PipelineEvent[] = [
      { type: 'SignalsCleared', dealId: deal.id, signals: [GONE_DARK] },
      entry(
        deal,
        'human',
        withNote(
          `Revived by the nurturer: gone_dark cleared; handed back to the ${stageRole(deal.stage)} role`,
          command.note,
        ),
        ctx.now,
        true,
        deal.stage,
        { gigId: claimed.id, closerId: claimed.closerId },
      ),
      { type: 'GigFulfilled', gigId: claimed.id, outcome: 'revived', at: ctx.now },
    ];
    const amount = claimed.pricing.kind === 'fee' ? claimed.pricing.amountCents : 0;
    events.push(...payout(claimed, deal, amount, ctx.now));
    return accept(events);
  });
}

export function releaseGig(
  state: PipelineState,
  gigId: string,
  closerId: string | undefined,
  ctx: DecisionContext,
): Decision {
  const gig = findGig(state, gigId);
  if (isRefusal(gig)) return reject(gig);
  const unknownCloser = checkCloser(state, closerId);
  if (unknownCloser) return reject(unknownCloser);
  if (!isActiveGig(gig)) {
    return reject(
      refuse.conflict('GIG_NOT_ACTIVE', `Gig ${gig.id} is ${gig.status}; only open or claimed gigs can be released.`),
    );
  }
  if (closerId !== undefined && gig.status === 'claimed' && closerId !== gig.closerId) {
    return reject(refuse.conflict('NOT_CLAIMANT', `Gig ${gig.id} is claimed by ${gig.closerId}, not ${closerId}.`));
  }
  return withDeal(state, gig.dealId, (deal) =>
    accept([
      { type: 'GigReleased', gigId: gig.id, at: ctx.now },
      entry(
        deal,
        'service',
        `The ${gig.role} gig was released; the deal returns to matching.`,
        ctx.now,
        true,
        deal.stage,
        { gigId: gig.id },
      ),
    ]),
  );
}

/** D-16: a claim that expires reopens the same gig to the pool. */
export function reopenGig(state: PipelineState, gigId: string, platform: boolean, ctx: DecisionContext): Decision {
  const gig = findGig(state, gigId);
  if (isRefusal(gig)) return reject(gig);
  if (gig.status !== 'claimed')
    return reject(refuse.conflict('GIG_NOT_CLAIMED', `Gig ${gig.id} is ${gig.status}, not claimed.`));
  if (platform && (gig.timerDueAt === undefined || gig.timerDueAt > ctx.now)) {
    return reject(refuse.conflict('NOT_DUE', `The claim on gig ${gig.id} is not due to expire.`));
  }
  return withDeal(state, gig.dealId, (deal) =>
    accept([
      { type: 'GigReopened', gigId: gig.id, at: ctx.now, dueAt: ctx.now + daysToMs(deal.mandate.stallTimeoutDays) },
      entry(
        deal,
        'service',
        `The claim on the ${gig.role} gig expired; the gig is open again.`,
        ctx.now,
        false,
        deal.stage,
        { gigId: gig.id, closerId: gig.closerId },
      ),
    ]),
  );
}

/** D-16: an open gig nobody claims within the deal's stallTimeoutDays is stored as expired. */
export function expireGig(state: PipelineState, gigId: string, ctx: DecisionContext): Decision {
  const gig = findGig(state, gigId);
  if (isRefusal(gig)) return reject(gig);
  if (gig.status !== 'open' || gig.timerDueAt === undefined || gig.timerDueAt > ctx.now) {
    return reject(refuse.conflict('NOT_DUE', `Gig ${gig.id} is not due to expire.`));
  }
  return withDeal(state, gig.dealId, (deal) =>
    accept([
      { type: 'GigExpired', gigId: gig.id, at: ctx.now },
      entry(
        deal,
        'service',
        `The ${gig.role} gig expired unclaimed after ${deal.mandate.stallTimeoutDays} days; the next advance posts a fresh gig.`,
        ctx.now,
        false,
        deal.stage,
        { gigId: gig.id },
      ),
    ]),
  );
}
