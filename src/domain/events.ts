// Everything the gate can decide is one of these facts. evolve() applies them; nothing else
// changes a record.
import type { DealChange } from './deal-changes.ts';
import type { IdKind } from './ids.ts';
import type { ActivityEntry, Closer, Deal, Gig, GigOutcome, PayoutLine } from './records.ts';
import type { Stage } from './stages.ts';

export type PipelineEvent =
  | { type: 'DealCreated'; deal: Deal }
  | {
      type: 'DealMoved';
      dealId: string;
      to: Stage;
      finalValueCents?: number;
      closedBy?: 'agent' | 'human';
    }
  /** acted: a person, agent or Seller acted, which restarts the stall clock (D-17). */
  | { type: 'ActivityRecorded'; dealId: string; entry: ActivityEntry; acted: boolean }
  | { type: 'SignalsAdded'; dealId: string; signals: readonly string[] }
  | { type: 'SignalsCleared'; dealId: string; signals: readonly string[] }
  | { type: 'HumanTrackSet'; dealId: string; humanTrack: boolean }
  /** D-67: the account or list value corrected; only what differs. */
  | { type: 'DealEdited'; dealId: string; changes: readonly DealChange[] }
  /**
   * D-47: the last event of every accepted decision that changed a deal it did not create (or one
   * of that deal's gigs): the deal's version, one more. So the version is a fold of the events.
   */
  | { type: 'DealVersioned'; dealId: string; version: number }
  | { type: 'GigPosted'; gig: Gig }
  | { type: 'GigClaimed'; gigId: string; closerId: string; at: number; dueAt: number }
  | { type: 'GigMoved'; gigId: string; at: number; dueAt: number }
  | { type: 'GigReleased'; gigId: string; at: number }
  | { type: 'GigReopened'; gigId: string; at: number; dueAt: number }
  | { type: 'GigExpired'; gigId: string; at: number }
  | { type: 'GigFulfilled'; gigId: string; outcome: GigOutcome; finalValueCents?: number; at: number }
  | { type: 'PayoutPosted'; line: PayoutLine }
  | { type: 'CloserEnrolled'; closer: Closer };

/**
 * Which record each event writes, written once for the service's persistence, its id taking and
 * the tests: the kind of record it changes (`ledger`: a payout line, a record of its own), and
 * whether it creates that record. A new event type does not typecheck until it is listed here.
 */
export const WRITES: Record<PipelineEvent['type'], { kind: IdKind | 'ledger'; creates: boolean }> = {
  DealCreated: { kind: 'deal', creates: true },
  DealMoved: { kind: 'deal', creates: false },
  ActivityRecorded: { kind: 'deal', creates: false },
  SignalsAdded: { kind: 'deal', creates: false },
  SignalsCleared: { kind: 'deal', creates: false },
  HumanTrackSet: { kind: 'deal', creates: false },
  DealEdited: { kind: 'deal', creates: false },
  DealVersioned: { kind: 'deal', creates: false },
  GigPosted: { kind: 'gig', creates: true },
  GigClaimed: { kind: 'gig', creates: false },
  GigMoved: { kind: 'gig', creates: false },
  GigReleased: { kind: 'gig', creates: false },
  GigReopened: { kind: 'gig', creates: false },
  GigExpired: { kind: 'gig', creates: false },
  // Fulfilment also updates the claimant's Register: see the service's persist.
  GigFulfilled: { kind: 'gig', creates: false },
  PayoutPosted: { kind: 'ledger', creates: false },
  CloserEnrolled: { kind: 'closer', creates: true },
};

/** The id of the record an event writes (undefined for a payout line). */
export function writtenId(event: PipelineEvent): string | undefined {
  switch (event.type) {
    case 'DealCreated':
      return event.deal.id;
    case 'GigPosted':
      return event.gig.id;
    case 'CloserEnrolled':
      return event.closer.id;
    case 'PayoutPosted':
      return undefined;
    default:
      return 'dealId' in event ? event.dealId : event.gigId;
  }
}
