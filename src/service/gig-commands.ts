// The writes of the closer marketplace: enrolment, the ranking, and a closer's moves on a gig,
// which only propose to the deal's gate as the agent's do (src/domain/decide-gig.ts).
import { actorOf, type Caller } from '../domain/access.ts';
import type { PipelineCommand } from '../domain/commands.ts';
import { MAY_FULFIL } from '../domain/decide.ts';
import type { Closer, Deal, Gig } from '../domain/records.ts';
import { refuse } from '../domain/refusal.ts';
import { initialState } from '../domain/state.ts';
import type { IfMatch } from '../domain/version.ts';
import { MATCH_LIMIT, rankedWithLedgers, withLedger } from './closers.ts';
import type { CloserWithLedger, GigOutcome, Ranked } from './outcomes.ts';
import { RefusedError } from './result.ts';
import type { Steps } from './steps.ts';
import type { UnitCommand } from './unit-command.ts';

export class GigCommands {
  constructor(private readonly steps: Steps) {}

  enrolCloser(input: { name: string; industries: readonly string[] }, caller?: Caller): UnitCommand<CloserWithLedger> {
    return {
      work: async (uow) => {
        const now = await this.steps.now(uow);
        const enrol = { type: 'EnrolCloser' as const, ...input };
        const applied = await this.steps.apply(uow, initialState(), enrol, now, actorOf(caller));
        return { closer: [...applied.state.closers.values()][0] as Closer, payouts: [] };
      },
    };
  }

  /**
   * D-25: the first `limit` of the ranking. valueUsd and role are part of the request but do not
   * change the ranking. A read; under a key it runs as a unit of work so that its answer is stored.
   */
  match(industry: string, limit = MATCH_LIMIT, caller?: Caller): UnitCommand<Ranked> {
    return {
      work: (uow) => rankedWithLedgers(uow, industry, limit, caller),
      read: (reader) => rankedWithLedgers(reader, industry, limit, caller),
    };
  }

  // The closer a closer's key acts as is the key's (src/operations/closer-of.ts checks the body).

  claimGig(gigId: string, closerId: string, ifMatch?: IfMatch, caller?: Caller) {
    return this.onGig(gigId, closerId, { type: 'ClaimGig', gigId, closerId }, ifMatch, caller);
  }

  advanceGig(
    gigId: string,
    input: { closerId?: string; advanceTo: string; valueUsd?: number; note?: string },
    ifMatch?: IfMatch,
    caller?: Caller,
  ) {
    return this.onGig(gigId, input.closerId, { type: 'AdvanceGig', gigId, ...input }, ifMatch, caller);
  }

  /** A nurturer's gig wakes its gone-dark deal (POST /gigs/{id}/revive). */
  clearGoneDark(gigId: string, input: { closerId?: string; note?: string }, ifMatch?: IfMatch, caller?: Caller) {
    return this.onGig(gigId, input.closerId, { type: 'ClearGoneDark', gigId, ...input }, ifMatch, caller);
  }

  /** D-53: a Seller releases a gig of its deal; a closer's key only a gig it claimed. */
  releaseGig(gigId: string, closerId?: string, ifMatch?: IfMatch, caller?: Caller) {
    return this.onGig(gigId, closerId, { type: 'ReleaseGig', gigId, closerId }, ifMatch, caller, (gig) => {
      if (caller?.kind !== 'closer' || (gig.status === 'claimed' && gig.closerId === caller.principal)) return;
      throw new RefusedError(
        refuse.conflict(
          'GIG_NOT_CLAIMED',
          `Gig ${gig.id} is not claimed by ${caller.principal}: a closer releases only its own.`,
        ),
      );
    });
  }

  /** The claim ends and the gig is open again (POST /gigs/{id}/expire, D-16). */
  reopenGig(gigId: string, ifMatch?: IfMatch, caller?: Caller) {
    return this.onGig(gigId, undefined, { type: 'ReopenGig', gigId, platform: false }, ifMatch, caller);
  }

  private onGig(
    gigId: string,
    closerId: string | undefined,
    command: PipelineCommand,
    ifMatch: IfMatch | undefined,
    caller: Caller | undefined,
    /** What the caller must hold of the gig beyond seeing it (refuses by throwing). */
    check?: (gig: Gig) => void,
  ): UnitCommand<GigOutcome> {
    return {
      work: async (uow) => {
        const lockClosers = MAY_FULFIL.has(command.type);
        const { state, now } = await this.steps.onGig(uow, gigId, closerId, lockClosers, ifMatch, caller);
        check?.(state.gigs.get(gigId) as Gig);
        const applied = await this.steps.apply(uow, state, command, now, actorOf(caller));
        const fulfilled = applied.events.some((e) => e.type === 'GigFulfilled');
        if (!lockClosers && fulfilled)
          throw new Error(`${command.type} fulfilled a gig, whose claimant it did not lock`);
        const gig = applied.state.gigs.get(gigId) as Gig;
        const outcome: GigOutcome = { gig, deal: applied.state.deals.get(gig.dealId) as Deal };
        if (fulfilled && gig.closerId) {
          outcome.closer = await withLedger(uow, applied.state.closers.get(gig.closerId) as Closer, caller);
        }
        return outcome;
      },
    };
  }
}
