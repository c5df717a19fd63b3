// D-55: a closer's key acts as its own closer only. A body may leave `closerId` out (the key's
// closer is meant) or name that closer; naming another is 403 CLOSER_MISMATCH. Other callers
// (the demo, a Seller releasing a gig of its deal) name the closer as the body does.
import type { Caller } from '../domain/access.ts';
import { refuse } from '../domain/refusal.ts';
import { RefusedError } from '../service/result.ts';

/** The closer a move on a gig names: for a closer's key, the key's own. */
export function claimant(caller: Caller | undefined, closerId: string | undefined): { closerId?: string } {
  if (caller?.kind !== 'closer') return closerId === undefined ? {} : { closerId };
  if (closerId !== undefined && closerId !== caller.principal) {
    throw new RefusedError(
      refuse.denied(
        'CLOSER_MISMATCH',
        `This key acts as ${caller.principal}; it cannot act as ${closerId}. Leave closerId out, or name ${caller.principal}.`,
      ),
    );
  }
  return { closerId: caller.principal };
}

/** The closer a claim is for: the body's (the demo requires one), or a closer key's own. */
export function actingCloser(caller: Caller | undefined, closerId: string | undefined): string {
  return claimant(caller, closerId).closerId as string;
}
