// decide(state, command, context) → events | refusal. The whole rulebook of the pipeline:
// the gate (via gate.ts), staffing and escalation, signals and stalls, the gig lifecycle
// and payouts. Pure: the clock and the next free ids come in through the context.
import type { DecisionContext, PipelineCommand, ProposalInput } from './commands.ts';
import type { PipelineEvent } from './events.ts';
import { commissionCents, floorCents, rule } from './gate.ts';
import { MAX_SIGNALS_PER_DEAL, resolveMandate } from './mandate.ts';
import { centsToUsd, formatUsd, usdToCents } from './money.ts';
import type { Actorship, Deal, Gig, GigPricing, PayoutLine } from './records.ts';
import { isActiveGig } from './records.ts';
import { isRefusal, type Refusal, refuse } from './refusal.ts';
import { needsHuman } from './staffing.ts';
import { GONE_DARK, isTerminal, nextStage, owningRole, type Role, stageRole } from './stages.ts';
import { daysToMs, type PipelineState } from './state.ts';
import { versioned } from './version.ts';

export type Decision =
  | {
      ok: true;
      events: PipelineEvent[];
      /** Set when the answer is the escalation shape (D-11): the role and its active gig. */
      escalation?: { role: Role; gigId: string };
    }
  | { ok: false; refusal: Refusal };

const accept = (events: PipelineEvent[], escalation?: { role: Role; gigId: string }): Decision =>
  escalation ? { ok: true, events, escalation } : { ok: true, events };
const reject = (refusal: Refusal): Decision => ({ ok: false, refusal });

/**
 * The commands whose decision may fulfil a gig (GigFulfilled), which writes the claimant's
 * Register: a unit of work deciding one locks the closers it loads (D-46); the others read them.
 */
export const MAY_FULFIL: ReadonlySet<PipelineCommand['type']> = new Set(['AdvanceGig', 'ReviveGig']);

export function decide(state: PipelineState, command: PipelineCommand, ctx: DecisionContext): Decision {
  const decision = decideCommand(state, command, ctx);
  return decision.ok ? versioned(state, decision) : decision;
}

function decideCommand(state: PipelineState, command: PipelineCommand, ctx: DecisionContext): Decision {
  switch (command.type) {
    case 'CreateDeal':
      return createDeal(command, ctx);
    case 'AdvanceDeal':
      return withDeal(state, command.dealId, (deal) => advanceDeal(state, deal, command.proposal, ctx));
    case 'ReportSignals':
      return withLiveDeal(state, command.dealId, (deal) => reportSignals(state, deal, command.signals, 'seller', ctx));
    case 'StallDeal':
      return withLiveDeal(state, command.dealId, (deal) =>
        deal.stallDueAt !== undefined && deal.stallDueAt <= ctx.now
          ? reportSignals(state, deal, [GONE_DARK], 'platform', ctx)
          : reject(refuse.conflict('NOT_DUE', `Deal ${deal.id} is not due to stall.`)),
      );
    case 'Deescalate':
      return withLiveDeal(state, command.dealId, (deal) => deescalate(state, deal, ctx));
    case 'Reengage':
      return withDeal(state, command.dealId, (deal) => reengage(deal, ctx));
    case 'EnrolCloser':
      return accept([
        {
          type: 'CloserEnrolled',
          closer: {
            id: ctx.nextIds.closer,
            name: command.name,
            industries: [...command.industries],
            record: { gigs: 0, wins: 0, grossClosedCents: 0n },
            enrolledAt: ctx.now,
          },
        },
      ]);
    case 'ClaimGig':
      return claimGig(state, command.gigId, command.closerId, ctx);
    case 'AdvanceGig':
      return withClaimedGig(state, command.gigId, command.closerId, (gig, deal) => advanceGig(gig, deal, command, ctx));
    case 'ReviveGig':
      return reviveGig(state, command, ctx);
    case 'ReleaseGig':
      return releaseGig(state, command.gigId, command.closerId, ctx);
    case 'ExpireClaim':
      return expireClaim(state, command.gigId, command.platform, ctx);
    case 'LapseGig':
      return lapseGig(state, command.gigId, ctx);
  }
}

// ── lookups ────────────────────────────────────────────────────────────────────────────────

function withDeal(state: PipelineState, dealId: string, then: (deal: Deal) => Decision): Decision {
  const deal = state.deals.get(dealId);
  return deal ? then(deal) : reject(refuse.notFound('DEAL_NOT_FOUND', `No deal ${dealId}.`));
}

/** D-7: any move, signal or advance on a terminal deal is 409. */
function withLiveDeal(state: PipelineState, dealId: string, then: (deal: Deal) => Decision): Decision {
  return withDeal(state, dealId, (deal) =>
    isTerminal(deal.stage)
      ? reject(refuse.conflict('DEAL_TERMINAL', `Deal ${deal.id} is ${deal.stage}; terminal is forever.`))
      : then(deal),
  );
}

function findGig(state: PipelineState, gigId: string): Gig | Refusal {
  return state.gigs.get(gigId) ?? refuse.notFound('GIG_NOT_FOUND', `No gig ${gigId}.`);
}

function checkCloser(state: PipelineState, closerId: string | undefined): Refusal | undefined {
  if (closerId === undefined || state.closers.has(closerId)) return undefined;
  return refuse.notFound('CLOSER_NOT_FOUND', `No closer ${closerId}.`);
}

/** D-14, D-15: gig moves need a claimed gig, proposed by its claimant if a closerId is named. */
function withClaimedGig(
  state: PipelineState,
  gigId: string,
  closerId: string | undefined,
  then: (gig: Gig, deal: Deal) => Decision,
): Decision {
  const gig = findGig(state, gigId);
  if (isRefusal(gig)) return reject(gig);
  const unknownCloser = checkCloser(state, closerId);
  if (unknownCloser) return reject(unknownCloser);
  if (gig.status !== 'claimed') {
    return reject(refuse.conflict('GIG_NOT_CLAIMED', `Gig ${gig.id} is ${gig.status}, not claimed.`));
  }
  if (closerId !== undefined && closerId !== gig.closerId) {
    return reject(refuse.conflict('NOT_CLAIMANT', `Gig ${gig.id} is claimed by ${gig.closerId}, not ${closerId}.`));
  }
  return withLiveDeal(state, gig.dealId, (deal) => then(gig, deal));
}

// ── activity ───────────────────────────────────────────────────────────────────────────────

function entry(deal: Deal, by: Actorship, note: string, at: number, acted: boolean, stage = deal.stage): PipelineEvent {
  return { type: 'ActivityRecorded', dealId: deal.id, entry: { at, by, stage, note }, acted };
}

function withNote(text: string, note: string | undefined): string {
  return note ? `${text}: ${note}` : text;
}

// ── deals ──────────────────────────────────────────────────────────────────────────────────

function createDeal(command: Extract<PipelineCommand, { type: 'CreateDeal' }>, ctx: DecisionContext): Decision {
  const listValueCents = usdToCents(command.listValueUsd);
  if (listValueCents < 1) {
    return reject(
      refuse.invalid('INVALID_BODY', 'The request body is invalid.', [
        'listValueUsd: must be at least 0.01 after rounding to the cent',
      ]),
    );
  }
  const resolved = resolveMandate(command.mandate, command.account.actor);
  if (!resolved.ok) return reject(refuse.mandate(resolved.violations));
  const deal: Deal = {
    id: ctx.nextIds.deal,
    version: 1,
    account: command.account,
    listValueCents,
    stage: 'sourced',
    signals: [],
    mandate: resolved.mandate,
    activity: [{ at: ctx.now, by: 'service', stage: 'sourced', note: 'Deal created at sourced; mandate resolved.' }],
    lastActedAt: ctx.now,
  };
  return accept([{ type: 'DealCreated', deal }]);
}

function reengage(deal: Deal, ctx: DecisionContext): Decision {
  if (deal.stage !== 'closed_lost') {
    return reject(
      refuse.conflict(
        'DEAL_NOT_CLOSED_LOST',
        `Deal ${deal.id} is ${deal.stage}; only a closed_lost deal can be re-engaged.`,
      ),
    );
  }
  const revived: Deal = {
    id: ctx.nextIds.deal,
    version: 1,
    account: deal.account,
    listValueCents: deal.listValueCents,
    stage: 'sourced',
    signals: [],
    mandate: deal.mandate,
    activity: [
      {
        at: ctx.now,
        by: 'service',
        stage: 'sourced',
        note: `Re-engagement of ${deal.id} (closed_lost); a new deal at sourced.`,
      },
    ],
    lineage: { revivedFrom: deal.id },
    lastActedAt: ctx.now,
  };
  return accept([{ type: 'DealCreated', deal: revived }]);
}

function activeGigOf(state: PipelineState, dealId: string): Gig | undefined {
  for (const gig of state.gigs.values()) if (gig.dealId === dealId && isActiveGig(gig)) return gig;
  return undefined;
}

function advanceDeal(state: PipelineState, deal: Deal, proposal: ProposalInput, ctx: DecisionContext): Decision {
  if (isTerminal(deal.stage)) {
    return reject(refuse.conflict('DEAL_TERMINAL', `Deal ${deal.id} is ${deal.stage}; terminal is forever.`));
  }
  if (needsHuman(deal)) return escalate(state, deal, ctx);

  // The built-in agent works the stage: it proposes, the gate rules.
  const to = proposal.advanceTo ?? nextStage(deal.stage) ?? deal.stage;
  const valueCents = to === 'closed_won' ? usdToCents(proposal.valueUsd ?? centsToUsd(deal.listValueCents)) : undefined;
  const ruling = rule(deal, { to, valueCents });
  if (!ruling.ok) return reject(ruling.refusal);
  return accept(moveEvents(deal, ruling.to, ruling.valueCents, 'agent', proposal.note, ctx.now));
}

/** The events of a committed move: the stage change and its activity entry. */
function moveEvents(
  deal: Deal,
  to: Deal['stage'],
  valueCents: number | undefined,
  by: 'agent' | 'human',
  note: string | undefined,
  at: number,
  via = '',
): PipelineEvent[] {
  const closing = to === 'closed_won' || to === 'closed_lost';
  const text =
    to === 'closed_won'
      ? `Closed won at ${formatUsd(valueCents ?? 0)} by the ${by}${via}`
      : `Advanced ${deal.stage} to ${to} by the ${by}${via}`;
  // Optional fields assigned, not spread in: this runs for every move of every sell.
  const moved: Extract<PipelineEvent, { type: 'DealMoved' }> = { type: 'DealMoved', dealId: deal.id, to };
  if (to === 'closed_won') moved.finalValueCents = valueCents;
  if (closing) moved.closedBy = by;
  return [moved, entry(deal, by, withNote(text, note), at, true, to)];
}

/** D-11: the deal does not move; the caller gets the active gig, or a fresh one is posted. */
function escalate(state: PipelineState, deal: Deal, ctx: DecisionContext): Decision {
  const role = owningRole(deal);
  const active = activeGigOf(state, deal.id);
  if (active) return accept([], { role: active.role, gigId: active.id });

  const gig: Gig = {
    id: ctx.nextIds.gig,
    status: 'open',
    dealId: deal.id,
    role,
    brief: {
      account: deal.account,
      listValueCents: deal.listValueCents,
      stage: deal.stage,
      signals: deal.signals,
      floorCents: floorCents(deal),
      activity: deal.activity,
    },
    pricing: pricingFor(deal, role),
    postedAt: ctx.now,
    openedAt: ctx.now,
    timerDueAt: ctx.now + daysToMs(deal.mandate.stallTimeoutDays),
  };
  const events: PipelineEvent[] = [];
  if (deal.humanTrack !== true) events.push({ type: 'HumanTrackSet', dealId: deal.id, humanTrack: true });
  events.push(
    { type: 'GigPosted', gig },
    entry(
      deal,
      'service',
      `The ${role} role needs a human: gig ${gig.id} posted to the closer marketplace.`,
      ctx.now,
      true,
    ),
  );
  return accept(events, { role, gigId: gig.id });
}

/** D-35: pricing is fixed at post time from the mandate. */
function pricingFor(deal: Deal, role: Role): GigPricing {
  if (role === 'closer') return { kind: 'commission', pct: deal.mandate.commissionPct };
  const fees = deal.mandate.fees;
  return { kind: 'fee', amountCents: role === 'setter' ? fees.setterCents : fees.nurturerCents };
}

function reportSignals(
  state: PipelineState,
  deal: Deal,
  signals: readonly string[],
  source: 'seller' | 'platform',
  ctx: DecisionContext,
): Decision {
  const added = [...new Set(signals)].filter((s) => !deal.signals.includes(s));
  if (added.length === 0) return accept([]);
  // D-44: a client cannot grow a deal without bound. The platform's own gone_dark is never
  // refused (a stall must always be able to happen).
  if (source === 'seller' && deal.signals.length + added.length > MAX_SIGNALS_PER_DEAL) {
    return reject(
      refuse.limit(
        'SIGNAL_LIMIT',
        `Deal ${deal.id} carries ${deal.signals.length} signals; ${added.length} more would pass the limit of ${MAX_SIGNALS_PER_DEAL}.`,
      ),
    );
  }
  const acted = source === 'seller';
  const events: PipelineEvent[] = [
    { type: 'SignalsAdded', dealId: deal.id, signals: added },
    entry(
      deal,
      'service',
      source === 'platform'
        ? `No activity for ${deal.mandate.stallTimeoutDays} days: the platform reported gone_dark.`
        : `Signals reported: ${added.join(', ')}.`,
      ctx.now,
      acted,
    ),
  ];
  if (added.includes(GONE_DARK)) {
    // D-13: stalled into the nurturer role; active gigs of other roles are released.
    if (deal.humanTrack !== true) events.push({ type: 'HumanTrackSet', dealId: deal.id, humanTrack: true });
    for (const gig of state.gigs.values()) {
      if (gig.dealId === deal.id && isActiveGig(gig) && gig.role !== 'nurturer') {
        events.push(
          { type: 'GigReleased', gigId: gig.id, at: ctx.now },
          entry(deal, 'service', `Gig ${gig.id} (${gig.role}) released: the deal went dark.`, ctx.now, acted),
        );
      }
    }
    events.push(
      entry(
        deal,
        'service',
        'Deal stalled: human track, nurturer role; it returns to matching under the nurturer.',
        ctx.now,
        acted,
      ),
    );
  }
  return accept(events);
}

/** D-12: the Seller's explicit way off the human track. */
function deescalate(state: PipelineState, deal: Deal, ctx: DecisionContext): Decision {
  if (deal.humanTrack !== true) {
    return reject(refuse.conflict('NOT_HUMAN_TRACK', `Deal ${deal.id} is not on the human track.`));
  }
  if (deal.signals.includes(GONE_DARK)) {
    return reject(
      refuse.conflict('DEAL_STALLED', `Deal ${deal.id} is stalled; a human nurturer works it until revived.`),
    );
  }
  const active = activeGigOf(state, deal.id);
  if (active?.status === 'claimed') {
    return reject(
      refuse.conflict('GIG_CLAIMED', `Gig ${active.id} is claimed by ${active.closerId}; release it first.`),
    );
  }
  const events: PipelineEvent[] = [];
  if (active) {
    events.push(
      { type: 'GigReleased', gigId: active.id, at: ctx.now },
      entry(deal, 'service', `Gig ${active.id} (${active.role}) released by de-escalation.`, ctx.now, true),
    );
  }
  events.push(
    { type: 'HumanTrackSet', dealId: deal.id, humanTrack: false },
    entry(deal, 'service', 'The Seller de-escalated the deal: the staffing rules apply again.', ctx.now, true),
  );
  return accept(events);
}

// ── gigs ───────────────────────────────────────────────────────────────────────────────────

function claimGig(state: PipelineState, gigId: string, closerId: string, ctx: DecisionContext): Decision {
  const gig = findGig(state, gigId);
  if (isRefusal(gig)) return reject(gig);
  const unknownCloser = checkCloser(state, closerId);
  if (unknownCloser) return reject(unknownCloser);
  if (gig.status !== 'open')
    return reject(refuse.conflict('GIG_NOT_OPEN', `Gig ${gig.id} is ${gig.status}, not open.`));
  return withLiveDeal(state, gig.dealId, (deal) =>
    accept([
      { type: 'GigClaimed', gigId: gig.id, closerId, at: ctx.now, dueAt: ctx.now + ctx.claimTtlMs },
      entry(deal, 'service', `Gig ${gig.id} (${gig.role}) claimed by ${closerId}.`, ctx.now, true),
    ]),
  );
}

function advanceGig(
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

  const via = ` (${closerId}, gig ${gig.id})`;
  const events = moveEvents(deal, ruling.to, ruling.valueCents, 'human', command.note, ctx.now, via);
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

function reviveGig(
  state: PipelineState,
  command: Extract<PipelineCommand, { type: 'ReviveGig' }>,
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
          `Revived by ${claimed.closerId} (gig ${claimed.id}): gone_dark cleared; handed back to the ${stageRole(deal.stage)} role`,
          command.note,
        ),
        ctx.now,
        true,
      ),
      { type: 'GigFulfilled', gigId: claimed.id, outcome: 'revived', at: ctx.now },
    ];
    const amount = claimed.pricing.kind === 'fee' ? claimed.pricing.amountCents : 0;
    events.push(...payout(claimed, deal, amount, ctx.now));
    return accept(events);
  });
}

function releaseGig(state: PipelineState, gigId: string, closerId: string | undefined, ctx: DecisionContext): Decision {
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
      entry(deal, 'service', `Gig ${gig.id} (${gig.role}) released; the deal returns to matching.`, ctx.now, true),
    ]),
  );
}

/** D-16: a claim that expires reopens the same gig to the pool. */
function expireClaim(state: PipelineState, gigId: string, platform: boolean, ctx: DecisionContext): Decision {
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
        `The claim of ${gig.closerId} on gig ${gig.id} expired; the gig is open again.`,
        ctx.now,
        false,
      ),
    ]),
  );
}

/** D-16: an open gig nobody claims within the deal's stallTimeoutDays is stored as expired. */
function lapseGig(state: PipelineState, gigId: string, ctx: DecisionContext): Decision {
  const gig = findGig(state, gigId);
  if (isRefusal(gig)) return reject(gig);
  if (gig.status !== 'open' || gig.timerDueAt === undefined || gig.timerDueAt > ctx.now) {
    return reject(refuse.conflict('NOT_DUE', `Gig ${gig.id} is not due to lapse.`));
  }
  return withDeal(state, gig.dealId, (deal) =>
    accept([
      { type: 'GigLapsed', gigId: gig.id, at: ctx.now },
      entry(
        deal,
        'service',
        `Gig ${gig.id} (${gig.role}) expired unclaimed after ${deal.mandate.stallTimeoutDays} days; the next advance posts a fresh gig.`,
        ctx.now,
        false,
      ),
    ]),
  );
}
