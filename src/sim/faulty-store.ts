// A store that fails on purpose: while armed, the next unit of work throws at a chosen point, after
// some of its writes or just before it would commit. Nothing of such a unit may remain; the
// simulation (src/sim/simulate.ts) checks that against a snapshot taken before.
import type { Store, UnitOfWork } from '../store/store.ts';

const WRITES = new Set(['putDeal', 'putGig', 'putCloser', 'appendPayout', 'publish', 'takeNumber', 'putAnswer']);
const PART_WRITES: Record<string, ReadonlySet<string>> = {
  proposals: new Set(['record']),
  approvals: new Set(['create', 'put']),
  accounts: new Set(['putKey', 'addKeyUsage']),
  // D-79: the ledger's transfers, refunds and payouts.
  ledger: new Set(['book', 'post', 'takeRefundId', 'putRefund', 'takePayoutId', 'putPayout']),
};

export class InjectedFault extends Error {
  constructor(where: string) {
    super(`injected fault ${where}`);
    this.name = 'InjectedFault';
  }
}

export interface FaultyStore extends Store {
  /** The next unit of work fails after `writes` writes (or, past its last write, before committing). */
  armFault(writes: number): void;
  /** No fault for the next unit after all. */
  disarm(): void;
  /** Whether the armed fault has fired since it was armed. */
  readonly faulted: boolean;
}

export function faultyStore(inner: Store): FaultyStore {
  let armed: number | undefined;
  let faulted = false;
  const fire = (countdown: { left: number }, where: string) => {
    if (countdown.left-- === 0) {
      faulted = true;
      throw new InjectedFault(`at ${where}`);
    }
  };
  // The writes of a part of the unit (its refused proposals, approvals, keys and their usage).
  const wrapPart = <T extends object>(part: T, name: string, countdown: { left: number }): T =>
    new Proxy(part, {
      get(target, member, receiver) {
        const value = Reflect.get(target, member, receiver);
        if (typeof value !== 'function') return value;
        if (!PART_WRITES[name]?.has(String(member))) return value.bind(target);
        return (...args: unknown[]) => {
          fire(countdown, `${name}.${String(member)}`);
          return value.apply(target, args);
        };
      },
    });
  const wrap = (uow: UnitOfWork, countdown: { left: number }): UnitOfWork =>
    new Proxy(uow, {
      get(target, name, receiver) {
        const member = Reflect.get(target, name, receiver);
        // D-61, D-68..D-70: a refused proposal, an approval, a key and its usage are writes too.
        if (typeof name === 'string' && name in PART_WRITES) return wrapPart(member, name, countdown);
        if (typeof member !== 'function') return member;
        if (!WRITES.has(String(name))) return member.bind(target);
        return (...args: unknown[]) => {
          fire(countdown, String(name));
          return member.apply(target, args);
        };
      },
    });
  const store: FaultyStore = {
    runsUnitsAgain: inner.runsUnitsAgain,
    read: (work, options) => inner.read(work, options),
    transaction: (work) => {
      if (armed === undefined) return inner.transaction(work);
      const countdown = { left: armed };
      armed = undefined;
      return inner.transaction(async (uow) => {
        const result = await work(wrap(uow, countdown));
        if (countdown.left >= 0) {
          faulted = true;
          throw new InjectedFault('before commit');
        }
        return result;
      });
    },
    events: (filter) => inner.events(filter),
    lastSeq: () => inner.lastSeq(),
    watchClockOffset: (listener) => inner.watchClockOffset(listener),
    watchWebhooks: (listener) => inner.watchWebhooks(listener),
    close: () => inner.close(),
    armFault(writes) {
      armed = writes;
      faulted = false;
    },
    disarm() {
      armed = undefined;
    },
    get faulted() {
      return faulted;
    },
  };
  return store;
}
