// A write as the service hands it to the unit runner (execute.ts): the work of one unit of work,
// and what follows its commit. The runner decides how it runs (plain, under an idempotency key,
// or dry); the command only says what it does, so every door runs every write the same way.
import type { StoreReader, UnitOfWork } from '../store/store.ts';
import type { DrawnKey } from './key-seal.ts';

export interface UnitCommand<T> {
  /**
   * Loads, decides and writes, inside one unit of work. The store may run it again from the
   * start after a deadlock or a serialization failure (D-46): it keeps nothing outside the unit.
   */
  work(uow: UnitOfWork): Promise<T>;
  /**
   * The same answer from a plain read, for a command that writes nothing (a ranking): without
   * an idempotency key it is served without a unit of work.
   */
  read?(reader: StoreReader): Promise<T>;
  /** Once the unit committed (never after a replayed answer, a refusal or a dry run). */
  committed?(value: T): void | Promise<void>;
  /**
   * D-251: the secret a result holds (a new key's text), which a stored answer must not: the
   * runner stores its nonce instead and draws it again for a replay.
   */
  secretOf?(value: T): DrawnKey | undefined;
}
