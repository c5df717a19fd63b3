// What a command is decided on: the records it may touch, loaded in one unit of work in the
// lock order every unit keeps (D-46: the deal, its gigs, then closers in id order).
import { compareIds, couldBeId } from '../domain/ids.ts';
import type { Closer } from '../domain/records.ts';
import { refuse } from '../domain/refusal.ts';
import { initialState, type PipelineState } from '../domain/state.ts';
import type { UnitOfWork } from '../store/store.ts';
import { RefusedError } from './result.ts';

/**
 * The deal and its gigs (asked for together, the deal first: the lock order), then the closers
 * named by them or by the caller, all at once and in id order (D-46: two units that lock the
 * same closers lock them in one order, so they cannot deadlock): one round trip each on a
 * database. `lockClosers`: only for a command that may write them (MAY_FULFIL, D-192).
 */
export async function loadDeal(
  uow: UnitOfWork,
  dealId: string,
  closerIds: (string | undefined)[] = [],
  lockClosers = false,
) {
  if (!couldBeId('deal', dealId)) throw new RefusedError(refuse.noDeal(dealId));
  const [deal, gigs] = await Promise.all([uow.getDeal(dealId), uow.gigsOfDeal(dealId)]);
  if (!deal) throw new RefusedError(refuse.noDeal(dealId));
  // A closer id that could name no closer is left out: the decider finds it unknown.
  const ids = [...new Set([...gigs.map((g) => g.closerId), ...closerIds])]
    .filter((id): id is string => id !== undefined && couldBeId('closer', id))
    .sort(compareIds);
  // Locked (in id order, after the deal and its gigs: D-46) only by a command that may write
  // them; the others read them as committed, so that units of one closer do not queue.
  const found = await Promise.all(ids.map((id) => (lockClosers ? uow.getCloser(id) : uow.readCloser(id))));
  const closers = new Map<string, Closer>();
  found.forEach((closer, i) => {
    if (closer) closers.set(ids[i], closer);
  });
  return {
    ...initialState(),
    deals: new Map([[deal.id, deal]]),
    gigs: new Map(gigs.map((g) => [g.id, g])),
    closers,
  } satisfies PipelineState;
}

/** The gig, and the state of its deal (loadDeal), the closer named by the caller with it. */
export async function loadGig(uow: UnitOfWork, gigId: string, closerId?: string, lockClosers = false) {
  // A closer read without a lock is sent with the gig's (one round trip on a database).
  const named =
    !lockClosers && closerId !== undefined && couldBeId('closer', closerId) ? uow.readCloser(closerId) : undefined;
  const [gig] = await Promise.all([couldBeId('gig', gigId) ? uow.getGig(gigId) : undefined, named]);
  if (!gig) throw new RefusedError(refuse.noGig(gigId));
  return { state: await loadDeal(uow, gig.dealId, [closerId], lockClosers), dealId: gig.dealId };
}
