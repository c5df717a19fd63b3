// One unit of work per request (D-6: a refused request changes nothing), and the same under an
// idempotency key (D-37): the answer is stored in the unit of work of the effects, so no crash
// can leave one without the other.
import type { Refusal } from '../domain/refusal.ts';
import type { IfMatch } from '../domain/version.ts';
import type { Store, UnitOfWork } from '../store/store.ts';
import type { DryRun } from './dry-run.ts';
import { IDEMPOTENCY_TTL_MS, isStoredStatus, type KeyedRequest, type RenderedAnswer } from './idempotency.ts';

export type Result<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

/** What a request under an idempotency key got: its answer (fresh or replayed), or the key was reused. */
export type KeyedOutcome = { kind: 'answered'; answer: RenderedAnswer; replayed: boolean } | { kind: 'reused' };

/** A keyed request on its way through a unit of work: the door's way to render its answer, and the outcome. */
interface KeyedRun {
  request: KeyedRequest;
  render(result: Result<unknown>): RenderedAnswer;
  outcome?: KeyedOutcome;
}

/** Options of every write: `keyed` makes it a keyed request (D-37); only keyed() sets it. */
export interface WriteOptions {
  keyed?: KeyedRun;
  /** D-48: run it as a dry run, its would-be writes kept here (only dryRun() sets it; a key is then ignored). */
  dryRun?: DryRun;
  /** D-47: the version of the deal the caller decided on (writes on a deal or its gigs). */
  ifMatch?: IfMatch;
}

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T>(refusal: Refusal): Result<T> => ({ ok: false, refusal });

/** Thrown inside a unit of work to roll it back and answer with a refusal. */
export class RefusedError extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
  }
}

/** Thrown inside a keyed unit of work that found its answer stored: nothing was written. */
const REPLAYED = Symbol('replayed');
/** What a write returns when its keyed answer was replayed; keyed() answers run.outcome instead. */
const REPLAYED_RESULT = { ok: false, refusal: undefined } as unknown as Result<never>;

/** Machine time: idempotency keys age in real time, not on the demo clock. */
interface MachineClock {
  now(): number;
}

/** Runs work in one unit of work; a refusal thrown inside rolls everything back. */
export async function runUnit<T>(store: Store, work: (uow: UnitOfWork) => Promise<T>): Promise<Result<T>> {
  try {
    return ok(await store.transaction(work));
  } catch (error) {
    if (error instanceof RefusedError) return fail(error.refusal);
    throw error;
  }
}

/**
 * A write under an idempotency key (D-37). A new key: the work runs and its answer is stored
 * in the same unit of work as its effects. A key already stored: nothing runs, and the stored
 * answer (or, for another request, IDEMPOTENCY_KEY_REUSED) is the outcome. Racing requests
 * with one key wait for each other on the key's lock, so one runs and the others replay it.
 */
export async function runKeyed<T>(
  store: Store,
  clock: MachineClock,
  work: (uow: UnitOfWork) => Promise<T>,
  run: KeyedRun,
): Promise<Result<T>> {
  let refused: Result<T>;
  try {
    // The answer leaves the unit as part of its result, which a store that reserves ids returns
    // with their real ids (store.ts, reserveId).
    const { value, outcome } = await store.transaction(async (uow) => {
      if (await replay(uow, clock, run)) throw REPLAYED;
      const value = await work(uow);
      await storeAnswer(uow, clock, run, ok(value));
      return { value, outcome: run.outcome };
    });
    run.outcome = outcome;
    return ok(value);
  } catch (error) {
    if (error === REPLAYED) return REPLAYED_RESULT;
    if (!(error instanceof RefusedError)) throw error;
    refused = fail(error.refusal);
  }
  // The refused unit rolled back having written nothing; its answer is stored in a unit of
  // its own, unless a request racing with the key stored one meanwhile: that one answers.
  await store.transaction(async (uow) => {
    if (!(await replay(uow, clock, run))) await storeAnswer(uow, clock, run, refused);
  });
  return refused;
}

/** Takes the key's lock and looks for its answer; true when one is kept (run.outcome says what). */
async function replay(uow: UnitOfWork, clock: MachineClock, run: KeyedRun): Promise<boolean> {
  const { key, fingerprint } = run.request;
  const [, stored] = await Promise.all([uow.lock(`idempotency:${key}`), uow.getAnswer(key)]);
  if (!stored || stored.storedAt <= clock.now() - IDEMPOTENCY_TTL_MS) return false;
  const { status, body, location, etag } = stored;
  const answer: RenderedAnswer = { status, body };
  if (location !== undefined) answer.location = location;
  if (etag !== undefined) answer.etag = etag;
  run.outcome = stored.fingerprint === fingerprint ? { kind: 'answered', answer, replayed: true } : { kind: 'reused' };
  return true;
}

async function storeAnswer(uow: UnitOfWork, clock: MachineClock, run: KeyedRun, result: Result<unknown>) {
  const answer = run.render(result);
  run.outcome = { kind: 'answered', answer, replayed: false };
  if (isStoredStatus(answer.status)) {
    await uow.putAnswer(run.request.key, { fingerprint: run.request.fingerprint, ...answer, storedAt: clock.now() });
  }
}

/** Runs `call` (a write of the service) keyed: see PipelineService.keyed. */
export async function keyedWrite<T>(
  request: KeyedRequest,
  call: (options: WriteOptions) => Promise<Result<T>>,
  render: (result: Result<T>) => RenderedAnswer,
): Promise<KeyedOutcome> {
  const run: KeyedRun = { request, render: render as KeyedRun['render'] };
  await call({ keyed: run });
  if (!run.outcome) throw new Error('a keyed write ran outside a unit of work');
  return run.outcome;
}
