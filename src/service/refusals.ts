// D-61: a refused proposal on the record. Written by the unit of work that answers the refusal
// (execute.ts), so that the record, its one `proposal.refused` event and (under a key) the
// stored answer commit together; the decision that refused wrote nothing, so nothing else does.
import { kindOf } from '../domain/access.ts';
import type { PublicEventDraft } from '../domain/public-events.ts';
import type { UnitOfWork } from '../store/store.ts';
import type { RefusedProposalError } from './result.ts';

/** Records the refusal and publishes its event; `recordedAt` is machine time (the feed's retention). */
export async function recordRefusal(uow: UnitOfWork, refused: RefusedProposalError, recordedAt: number) {
  const record = await uow.proposals.record(refused.record);
  const event: PublicEventDraft = { type: 'proposal.refused', at: record.at, data: record };
  // D-57, D-58: the deal's Seller sees it, and so does the closer that proposed it.
  if (record.sellerId !== undefined) event.sellerId = record.sellerId;
  const actor = record.actor;
  if (actor !== undefined) {
    event.actor = actor;
    if (kindOf(actor.principal) === 'closer') event.closerId = actor.principal;
  }
  await uow.publish([event], recordedAt);
}
