// How every write runs, whichever door it came through: one unit of work (D-6: a refusal
// changes nothing), in one of three modes. Plain: the work, then its answer. Keyed (D-37): the
// answer is stored in the unit of work of the effects, so no crash can leave one without the
// other, and a key already stored answers its stored bytes (or IDEMPOTENCY_KEY_REUSED) without
// running anything. Dry (D-48): the work runs against a unit that keeps its writes, then rolls
// back, and the answer is what it would do.
import { idempotencyLock, type Store, type StoredAnswer, type UnitOfWork } from '../store/store.ts';
import { runDry } from './dry-run.ts';
import { type Answer, IDEMPOTENCY_TTL_MS, isStoredStatus, type RenderedAnswer } from './idempotency.ts';
import { KeySeal } from './key-seal.ts';
import type { DryRunOutcome } from './outcomes.ts';
import { recordRefusal } from './refusals.ts';
import { fail, KeptRefusalError, ok, RefusedError, RefusedProposalError, type Result } from './result.ts';
import type { UnitCommand } from './unit-command.ts';

/** How a request asks for its write to run. */
/** `owner`: D-54, the principal whose keys these are (keys mode): another's never share an answer. */
export type Mode =
  | { kind: 'plain' }
  | { kind: 'keyed'; key: string; fingerprint: string; owner?: string }
  | { kind: 'dry' };

export const PLAIN: Mode = { kind: 'plain' };

/** How a door answers a command's result (src/views/answers.ts makes these). */
export interface Rendering<T> {
  answer(result: Result<T>): Answer;
  /** D-48: the answer of a dry run; a command without one is never run dry. */
  dry?(result: Result<DryRunOutcome<T>>): Answer;
  /** The answer as the bytes a key stores and replays. */
  bytes(answer: Answer): RenderedAnswer;
}

/** What a run answered: the four ways a write can end. */
export type Execution =
  /** Run now, without a key: the answer. */
  | { kind: 'answered'; answer: Answer; stored?: undefined }
  /** Run now under a key: the answer as stored (send those bytes). */
  | { kind: 'answered'; stored: RenderedAnswer }
  /** The key's stored answer, sent again: nothing ran. */
  | { kind: 'replayed'; answer: RenderedAnswer }
  /** The key was first used with another request: nothing ran. */
  | { kind: 'reused'; key: string }
  /** D-251: the key's answer held a secret that can no longer be drawn again (OPERATOR_KEY changed). */
  | { kind: 'unrecoverable'; key: string }
  /** What the write would do: nothing was stored. */
  | { kind: 'dry'; answer: Answer };

type KeyedMode = Extract<Mode, { kind: 'keyed' }>;

/** D-54: a principal's keys are its own: the key is stored under its owner's name. */
const storedKey = (mode: KeyedMode) => (mode.owner === undefined ? mode.key : `${mode.owner}:${mode.key}`);

/** Machine time: idempotency keys age in real time, not on the demo clock. */
interface MachineClock {
  now(): number;
}

/**
 * Thrown inside a keyed unit of work that found its key stored, to roll it back having written
 * nothing. Not an Error: a replay is an answer, not a failure, and needs no stack trace.
 */
class Replayed {
  constructor(readonly execution: Execution) {}
}

export class UnitRunner {
  /** Told after every unit of work that committed (the feed may have grown). */
  private readonly commitListeners = new Set<() => void>();

  constructor(
    private readonly store: Store,
    private readonly clock: MachineClock,
    /** D-251: keys mode's seal of new keys' texts (none in the demo, which makes no keys). */
    private readonly seal?: KeySeal,
  ) {}

  /** Listens for committed units of work; returns the way to stop listening. */
  onCommit(listener: () => void): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  /** Runs a command plainly and answers its result (the service's own callers: timers, seeding). */
  async result<T>(command: UnitCommand<T>, principal?: string): Promise<Result<T>> {
    // A command reads its records and writes through the port alone: optimistic (D-250, one round trip).
    const options = { principal, optimistic: true };
    if (command.read) return ok(await this.store.read(command.read, options));
    let result: Result<T>;
    try {
      result = await this.store.transaction((uow) => this.workOrRecord(uow, command), options);
    } catch (error) {
      if (error instanceof RefusedError) return fail(error.refusal);
      throw error;
    }
    if (!result.ok) {
      // The refusal's record committed: the feed grew.
      this.tell();
      return result;
    }
    const following = this.committed(command, result.value);
    if (following) await following;
    return result;
  }

  /**
   * The command's work; a refused proposal (D-61) is recorded in the same unit, which then
   * commits the record alone, and answered as the refusal it is.
   */
  private async workOrRecord<T>(uow: UnitOfWork, command: UnitCommand<T>): Promise<Result<T>> {
    try {
      return ok(await command.work(uow));
    } catch (error) {
      if (error instanceof KeptRefusalError) {
        await error.keep(uow);
        return fail(error.refusal);
      }
      if (!(error instanceof RefusedProposalError)) throw error;
      await recordRefusal(uow, error, this.clock.now());
      return fail(error.refusal);
    }
  }

  /**
   * Runs a command as `mode` asks and answers as `rendering` says; `principal` is whom the
   * store holds its statements to (D-57), unset for the demo.
   */
  async execute<T>(
    command: UnitCommand<T>,
    mode: Mode,
    rendering: Rendering<T>,
    principal?: string,
  ): Promise<Execution> {
    if (mode.kind === 'dry') {
      if (!rendering.dry) throw new Error('a dry run of a command that has no dry answer');
      const result = await runDry(this.store, (uow) => command.work(uow), principal);
      return { kind: 'dry', answer: rendering.dry(result) };
    }
    if (mode.kind === 'plain')
      return { kind: 'answered', answer: rendering.answer(await this.result(command, principal)) };
    return this.keyed(command, mode, rendering, principal);
  }

  /**
   * After a commit: the command's own follow-up, then the listeners. A promise only when the
   * command has a follow-up to wait for (most have none: no await, no extra turn).
   */
  private committed<T>(command: UnitCommand<T>, value: T): void | Promise<void> {
    const following = command.committed?.(value);
    if (following) return following.then(() => this.tell());
    this.tell();
  }

  private tell(): void {
    for (const listener of this.commitListeners) listener();
  }

  /**
   * A new key: the work runs and its answer is stored with its effects. A key already stored:
   * nothing runs. Racing requests with one key wait for each other on the key's lock, so one
   * runs and the others replay it.
   *
   * D-285: the key is read first, outside any unit (one statement): a stored answer is replayed at
   * once. A key found free lets the unit's optimistic run skip the lock and the read inside its
   * transaction, so that it can commit in a group like any other write: its answer is written only
   * as a new row, behind the key's lock; should a racing request have stored one meanwhile, the
   * unit conflicts, is rolled back, and runs again with the lock, which finds and replays it.
   */
  private async keyed<T>(
    command: UnitCommand<T>,
    mode: Extract<Mode, { kind: 'keyed' }>,
    rendering: Rendering<T>,
    principal: string | undefined,
  ): Promise<Execution> {
    const options = { principal, optimistic: true };
    const peek = this.store.runsUnitsAgain
      ? await this.store.read((reader) => reader.getAnswer(storedKey(mode)), { principal, oneStatement: true })
      : null;
    const kept = peek ? this.judged(peek, mode) : undefined;
    if (kept) return kept;
    let refused: Result<T>;
    try {
      // The answer leaves the unit with its value: a store that reserves ids returns both with
      // their real ids (store.ts, reserveId).
      // Only the bytes leave the unit with the value: the answer object has served its turn.
      // A refused proposal is recorded, and its answer stored, in the same unit (D-61).
      const { result, stored } = await this.store.transaction(async (uow) => {
        // Free: the key had no row at all when read (an expired answer is replaced under the lock).
        const free = peek === undefined && uow.runsAgainOnConflict;
        if (!free) {
          const found = await this.storedAnswer(uow, mode);
          if (found) throw new Replayed(found);
        }
        const result = await this.workOrRecord(uow, command);
        const bytes = rendering.bytes(rendering.answer(result));
        const secret = result.ok ? command.secretOf?.(result.value) : undefined;
        if (secret === undefined) return { result, stored: await this.storeAnswer(uow, mode, bytes, free) };
        // D-251: stored with the key's nonce in its place; answered with the key.
        if (this.seal === undefined) throw new Error('a secret to store without a seal');
        await this.storeAnswer(uow, mode, { ...bytes, body: this.seal.seal(bytes.body, secret) }, free);
        return { result, stored: bytes };
      }, options);
      if (result.ok) {
        const following = this.committed(command, result.value);
        if (following) await following;
      } else this.tell();
      return { kind: 'answered', stored };
    } catch (error) {
      if (error instanceof Replayed) return error.execution;
      if (!(error instanceof RefusedError)) throw error;
      refused = fail(error.refusal);
    }
    // The refused unit rolled back having written nothing; its answer is stored in a unit of
    // its own, unless a request racing with the key stored one meanwhile: that one answers.
    const bytes = rendering.bytes(rendering.answer(refused));
    return this.store.transaction(
      async (uow): Promise<Execution> =>
        (await this.storedAnswer(uow, mode)) ?? { kind: 'answered', stored: await this.storeAnswer(uow, mode, bytes) },
      options,
    );
  }

  /** Takes the key's lock and answers what its stored answer means, if one is kept. */
  private async storedAnswer(uow: UnitOfWork, mode: KeyedMode) {
    const key = storedKey(mode);
    const [, stored] = await Promise.all([uow.lock(idempotencyLock(key)), uow.getAnswer(key)]);
    return this.judged(stored, mode);
  }

  /** What a key's stored answer means for this request: none (absent or expired), a replay, or a refusal. */
  private judged(stored: StoredAnswer | undefined, mode: KeyedMode): Execution | undefined {
    if (!stored || stored.storedAt <= this.clock.now() - IDEMPOTENCY_TTL_MS) return undefined;
    if (stored.fingerprint !== mode.fingerprint) return { kind: 'reused', key: mode.key } satisfies Execution;
    const { status, location, etag } = stored;
    let { body } = stored;
    if (KeySeal.isSealed(body)) {
      const unsealed = this.seal?.unseal(body);
      if (unsealed === undefined) return { kind: 'unrecoverable', key: mode.key } satisfies Execution;
      body = unsealed;
    }
    const answer: RenderedAnswer = { status, body };
    if (location !== undefined) answer.location = location;
    if (etag !== undefined) answer.etag = etag;
    return { kind: 'replayed', answer } satisfies Execution;
  }

  /** Stores the answer under the key when its status is one a retry must see again. */
  private async storeAnswer(
    uow: UnitOfWork,
    mode: KeyedMode,
    answer: RenderedAnswer,
    asNew = false,
  ): Promise<RenderedAnswer> {
    if (isStoredStatus(answer.status)) {
      // A literal, not spreads: every keyed write stores one.
      const stored: StoredAnswer = {
        fingerprint: mode.fingerprint,
        status: answer.status,
        body: answer.body,
        storedAt: this.clock.now(),
      };
      if (answer.location !== undefined) stored.location = answer.location;
      if (answer.etag !== undefined) stored.etag = answer.etag;
      if (mode.owner !== undefined) stored.owner = mode.owner;
      await uow.putAnswer(storedKey(mode), stored, asNew);
    }
    return answer;
  }
}
