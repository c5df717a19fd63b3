// Who works the role that owns a deal now: the built-in agent or a human from the marketplace.
import type { Deal, StaffingRule } from './records.ts';
import { owningRole } from './stages.ts';

/** D-10: humanIf holds when any of its given conditions holds. */
export function ruleCallsForHuman(rule: StaffingRule, deal: Pick<Deal, 'listValueCents' | 'signals'>): boolean {
  if (rule === 'agent') return false;
  if (rule === 'human') return true;
  const { minDealSizeCents, signals } = rule.humanIf;
  if (minDealSizeCents !== undefined && deal.listValueCents >= minDealSizeCents) return true;
  return signals?.some((signal) => deal.signals.includes(signal)) ?? false;
}

/**
 * D-10, D-11, D-12: a human works the deal when it is on the human track (until the Seller's
 * deescalate takes it off), when it is stalled (always a human nurturer), or when the owning role's rule says so.
 */
export function needsHuman(deal: Deal): boolean {
  const role = owningRole(deal);
  if (deal.humanTrack === true || role === 'nurturer') return true;
  return ruleCallsForHuman(deal.mandate.staffing[role], deal);
}
