// The gate: the one place that rules on a proposed move of a deal, whoever proposed it.
// It checks legality (D-7), the negotiation floor (D-9) and the commission cap.
import { PLATFORM } from './mandate.ts';
import { applyFraction, type Cents, formatPercent, formatUsd } from './money.ts';
import type { Deal } from './records.ts';
import { type Refusal, refuse } from './refusal.ts';
import { isLegalMove, isStage, isTerminal, nextStage, type Stage } from './stages.ts';

export interface Proposal {
  /** Target stage as the proposer wrote it; checked here, not trusted. */
  readonly to: string;
  /** Close value in cents; required for closed_won. */
  readonly valueCents?: Cents;
  /** Commission fraction that would be paid on a close won (a closer gig's pricing). */
  readonly commissionPct?: number;
}

export type GateRuling = { ok: true; to: Stage; valueCents?: Cents } | { ok: false; refusal: Refusal };

export function floorCents(deal: Pick<Deal, 'listValueCents' | 'mandate'>): Cents {
  return applyFraction(deal.listValueCents, deal.mandate.floorPct);
}

export function rule(deal: Deal, proposal: Proposal): GateRuling {
  const { to } = proposal;
  if (isTerminal(deal.stage)) {
    return {
      ok: false,
      refusal: refuse.terminal(deal),
    };
  }
  if (!isStage(to) || !isLegalMove(deal.stage, to)) {
    const next = nextStage(deal.stage);
    return {
      ok: false,
      refusal: refuse.gate(
        'GATE_ILLEGAL_MOVE',
        `Illegal move from ${deal.stage} to ${to}: a deal moves one stage at a time (next is ${next}) or to closed_lost.`,
      ),
    };
  }
  if (to !== 'closed_won') return { ok: true, to };

  const value = proposal.valueCents;
  if (value === undefined || value < 1) {
    return { ok: false, refusal: refuse.gate('GATE_VALUE_REQUIRED', 'A close won needs valueUsd of at least 0.01.') };
  }
  const floor = floorCents(deal);
  if (value < floor) {
    return {
      ok: false,
      refusal: refuse.gate(
        'GATE_BELOW_FLOOR',
        `Proposed close value ${formatUsd(value)} is below the negotiation floor ${formatUsd(floor)} ` +
          `(${formatPercent(deal.mandate.floorPct)} of list value ${formatUsd(deal.listValueCents)}).`,
      ),
    };
  }
  const pct = proposal.commissionPct;
  const cap = Math.min(deal.mandate.maxCommissionPct, PLATFORM.maxCommissionPct);
  if (pct !== undefined && pct > cap) {
    return {
      ok: false,
      refusal: refuse.gate(
        'GATE_COMMISSION_CAP',
        `Commission ${formatPercent(pct)} is above the cap ${formatPercent(cap)}; the gate will not pay it.`,
      ),
    };
  }
  return { ok: true, to, valueCents: value };
}

export function commissionCents(finalValueCents: Cents, pct: number): Cents {
  return applyFraction(finalValueCents, pct);
}

export function platformFeeCents(finalValueCents: Cents): Cents {
  return applyFraction(finalValueCents, PLATFORM.platformFeePct);
}
