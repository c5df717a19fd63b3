// The rulebook of a deal: creation and re-engagement, the agent's advance through the gate
// (rule in gate.ts), escalation to a human role (D-11) with its gig, signals and the stall they
// may bring (D-13), and the Seller's de-escalation (D-12).
import type { DecisionContext, PipelineCommand, ProposalInput } from './commands.ts';
import { accept, activeGigOf, type Decision, entry, moveEvents, reject } from './decision.ts';
import type { PipelineEvent } from './events.ts';
import { floorCents, rule } from './gate.ts';
import { MAX_SIGNALS_PER_DEAL, resolveMandate } from './mandate.ts';
import { centsToUsd, usdToCents } from './money.ts';
import type { Deal, Gig, GigPricing } from './records.ts';
import { isActiveGig } from './records.ts';
import { refuse } from './refusal.ts';
import { needsHuman } from './staffing.ts';
import { GONE_DARK, isTerminal, nextStage, owningRole, type Role } from './stages.ts';
import { daysToMs, type PipelineState } from './state.ts';

/**
 * A record just made by the literal above each call, given its Seller (keys mode, D-51): set on
 * it rather than copied, since no one else holds it yet (a copy cost keys mode's sell 2–3 µs a
 * record); the demo's records are made without one.
 */
function ownedBy<T extends Deal | Gig>(record: T, sellerId: string | undefined): T {
  if (sellerId !== undefined) (record as { sellerId?: string }).sellerId = sellerId;
  return record;
}

export function createDeal(command: Extract<PipelineCommand, { type: 'CreateDeal' }>, ctx: DecisionContext): Decision {
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
  return accept([{ type: 'DealCreated', deal: ownedBy(deal, command.sellerId) }]);
}

export function reengage(deal: Deal, ctx: DecisionContext): Decision {
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
        // The lost deal's id is the lineage's (D-272: no id in a note's words).
        note: 'Re-engagement of a closed_lost deal; a new deal at sourced.',
      },
    ],
    lineage: { revivedFrom: deal.id },
    lastActedAt: ctx.now,
  };
  // The revived deal belongs to the Seller of the lost one.
  return accept([{ type: 'DealCreated', deal: ownedBy(revived, deal.sellerId) }]);
}

/**
 * The agent's advance, or a Seller's own person's (D-65: `human`, its close owing no commission:
 * no gig, so no closer's line). Either way the gate rules, and a deal that needs a human escalates.
 */
export function advanceDeal(
  state: PipelineState,
  deal: Deal,
  proposal: ProposalInput,
  ctx: DecisionContext,
  executor: 'agent' | 'human' = 'agent',
): Decision {
  if (isTerminal(deal.stage)) {
    return reject(refuse.terminal(deal));
  }
  if (needsHuman(deal)) return escalate(state, deal, ctx);

  // The built-in agent (or the Seller's person) works the stage: it proposes, the gate rules.
  const to = proposal.advanceTo ?? nextStage(deal.stage) ?? deal.stage;
  const valueCents = to === 'closed_won' ? usdToCents(proposal.valueUsd ?? centsToUsd(deal.listValueCents)) : undefined;
  const ruling = rule(deal, { to, valueCents });
  if (!ruling.ok) return reject(ruling.refusal);
  return accept(moveEvents(deal, ruling.to, ruling.valueCents, executor, proposal.note, ctx.now));
}

/** D-11: the deal does not move; the caller gets the active gig, or a fresh one is posted. */
function escalate(state: PipelineState, deal: Deal, ctx: DecisionContext): Decision {
  const role = owningRole(deal);
  const active = activeGigOf(state, deal.id);
  if (active) return accept([], { role: active.role, gigId: active.id });

  const posted: Gig = {
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
  const gig = ownedBy(posted, deal.sellerId);
  const events: PipelineEvent[] = [];
  if (deal.humanTrack !== true) events.push({ type: 'HumanTrackSet', dealId: deal.id, humanTrack: true });
  events.push(
    { type: 'GigPosted', gig },
    entry(
      deal,
      'service',
      `The ${role} role needs a human: a gig posted to the closer marketplace.`,
      ctx.now,
      true,
      deal.stage,
      { gigId: gig.id },
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

export function reportSignals(
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
          entry(deal, 'service', `The ${gig.role} gig was released: the deal went dark.`, ctx.now, acted, deal.stage, {
            gigId: gig.id,
          }),
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
export function deescalate(state: PipelineState, deal: Deal, ctx: DecisionContext): Decision {
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
      entry(deal, 'service', `The ${active.role} gig was released by de-escalation.`, ctx.now, true, deal.stage, {
        gigId: active.id,
      }),
    );
  }
  events.push(
    { type: 'HumanTrackSet', dealId: deal.id, humanTrack: false },
    entry(deal, 'service', 'The Seller de-escalated the deal: the staffing rules apply again.', ctx.now, true),
  );
  return accept(events);
}
