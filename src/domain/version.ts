// D-47: a deal's version, one of the decider's events (versioned), and the check of the version
// a move names. A move may name the version of the deal it was decided on (If-Match); if the deal has
// changed since, the move is refused and nothing changes. Checked by the service inside the unit
// of work, after the deal's lock, so two writers holding one version cannot both succeed.
import type { PipelineEvent } from './events.ts';
import type { Deal } from './records.ts';
import { type Refusal, refuse } from './refusal.ts';
import type { PipelineState } from './state.ts';

/** A version the caller read, or '*': any version, as long as the deal exists (RFC 9110). */
export type IfMatch = number | '*';

/** The refusal when the deal is not at the version the caller names; undefined when it is. */
export function versionMismatch(deal: Deal, ifMatch: IfMatch | undefined): Refusal | undefined {
  if (ifMatch === undefined || ifMatch === '*' || ifMatch === deal.version) return undefined;
  return refuse.precondition(
    'PRECONDITION_FAILED',
    `Deal ${deal.id} is at version ${deal.version} (${deal.stage}), not ${ifMatch}: it changed since it was read. Read it again and decide on what it is now.`,
    { version: deal.version, stage: deal.stage },
  );
}

/**
 * D-47: an accepted decision ends with one DealVersioned per deal it changed, itself or through
 * one of its gigs (a deal it created is at version 1 already).
 */
export function versioned<D extends { events: PipelineEvent[] }>(state: PipelineState, decision: D): D {
  const created: string[] = [];
  const changed: string[] = [];
  for (const event of decision.events) {
    let dealId: string | undefined;
    if (event.type === 'DealCreated') created.push(event.deal.id);
    else if (event.type === 'GigPosted') dealId = event.gig.dealId;
    else if ('dealId' in event) dealId = event.dealId;
    else if ('gigId' in event) dealId = state.gigs.get(event.gigId)?.dealId;
    if (dealId !== undefined && !created.includes(dealId) && !changed.includes(dealId)) changed.push(dealId);
  }
  if (changed.length === 0) return decision;
  const events = [...decision.events];
  for (const dealId of changed) {
    const deal = state.deals.get(dealId);
    if (deal) events.push({ type: 'DealVersioned', dealId, version: deal.version + 1 });
  }
  return { ...decision, events };
}
