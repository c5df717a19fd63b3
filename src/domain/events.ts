// Everything the gate can decide is one of these facts. evolve() applies them; nothing else
// changes a record.
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
  | { type: 'GigPosted'; gig: Gig }
  | { type: 'GigClaimed'; gigId: string; closerId: string; at: number; dueAt: number }
  | { type: 'GigMoved'; gigId: string; at: number; dueAt: number }
  | { type: 'GigReleased'; gigId: string; at: number }
  | { type: 'GigReopened'; gigId: string; at: number; dueAt: number }
  | { type: 'GigLapsed'; gigId: string; at: number }
  | { type: 'GigFulfilled'; gigId: string; outcome: GigOutcome; finalValueCents?: number; at: number }
  | { type: 'PayoutPosted'; line: PayoutLine }
  | { type: 'CloserEnrolled'; closer: Closer };
