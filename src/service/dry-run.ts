// Dry runs (D-48): a write runs through the very unit of work the real call runs (the same
// loads and locks, the same If-Match check, the same decisions), but against a unit of work
// that keeps its writes instead of making them, and is rolled back at the end. So a dry run can
// never disagree with the real call, and can never change anything: no record, no id, no event,
// no stored answer.
import { isProvisionalId } from '../domain/ids.ts';
import type { PublicEventDraft } from '../domain/public-events.ts';
import type { Deal, PayoutLine } from '../domain/records.ts';
import { isRefusal } from '../domain/refusal.ts';
import { type Settlement, settle } from '../domain/settlement.ts';
import type { Store, StoreReader, UnitOfWork } from '../store/store.ts';
import type { DryRunOutcome } from './outcomes.ts';
import { fail, ok, RefusedError, type Result } from './result.ts';

/**
 * Thrown at the end of a dry run's unit of work, to roll it back with what it would do. Not an
 * Error: every dry run ends this way, and an Error would capture a stack trace for nothing.
 */
class DryRunDone {
  constructor(readonly outcome: DryRunOutcome<unknown>) {}
}

/** What a unit of work has beyond a reader's that a dry run passes through: locks and reads. */
type PassedThrough = 'lock' | 'nextNumbers' | 'getAnswer' | 'readCloser' | 'runsAgainOnConflict';

/**
 * Every write of a unit of work: a dry run keeps those a decision makes and refuses the rest.
 * (A write added to the UnitOfWork port fails to typecheck here until a dry run says what it does.)
 */
type Writes = Pick<UnitOfWork, Exclude<keyof UnitOfWork, keyof StoreReader | PassedThrough>>;

interface Kept {
  deals: Map<string, Deal>;
  payouts: PayoutLine[];
  events: PublicEventDraft[];
}

function keepingWrites(kept: Kept): Writes {
  const none = async (): Promise<never> => {
    throw new Error('a dry run makes no write but those of a decision');
  };
  return {
    // A created record keeps its provisional id: the views answer it as null (src/views/dry-run.ts).
    numberIds: async () => new Map(),
    takeNumber: none,
    putDeal: async (deal) => {
      kept.deals.set(deal.id, deal);
    },
    // The gig and the closer a write answers come from its value; only the deals settle.
    putGig: async () => {},
    putCloser: async () => {},
    appendPayout: async (line) => {
      kept.payouts.push(line);
    },
    publish: async (events) => {
      kept.events.push(...events);
    },
    setClockOffsetMs: none,
    advanceClockOffsetMs: none,
    putAnswer: none,
    purgeAnswers: none,
    purgeEvents: none,
    wipe: none,
  };
}

/** The units of work of dry runs in progress (the gate's decisions in them are counted apart). */
const dryUnits = new WeakSet<UnitOfWork>();

/** Whether `uow` is a dry run's. */
export function isDryRun(uow: UnitOfWork): boolean {
  return dryUnits.has(uow);
}

/** The unit of work with its writes kept in `kept`; its reads (and the locks they take) are the real ones. */
function dryUnit(uow: UnitOfWork, kept: Kept): UnitOfWork {
  const writes: Record<string, unknown> = keepingWrites(kept) as never;
  const unit = new Proxy(uow, {
    get(target, property, receiver) {
      if (typeof property === 'string' && property in writes) return writes[property];
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  dryUnits.add(unit);
  return unit;
}

/**
 * Runs `work` as a dry run: in a unit of work (its loads lock what the real call's lock), its
 * writes kept instead of made, then rolled back. A refusal is the real call's refusal. What it
 * keeps is made inside the unit, so a unit the store runs again starts from nothing.
 */
export async function runDry<T>(
  store: Store,
  work: (uow: UnitOfWork) => Promise<T>,
  principal?: string,
): Promise<Result<DryRunOutcome<T>>> {
  try {
    await store.transaction(
      async (uow) => {
        const kept: Kept = { deals: new Map(), payouts: [], events: [] };
        const value = await work(dryUnit(uow, kept));
        const outcome: DryRunOutcome<T> = { value, events: kept.events };
        const settlement = await wouldSettle(uow, kept);
        if (settlement) outcome.settlement = settlement;
        throw new DryRunDone(outcome);
      },
      principal === undefined ? undefined : { principal },
    );
  } catch (error) {
    if (error instanceof DryRunDone) return ok(error.outcome as DryRunOutcome<T>);
    if (error instanceof RefusedError) return fail(error.refusal);
    throw error;
  }
  throw new Error('a dry run committed');
}

/** The settlement of a deal the dry run would close won: its ledger lines so far and the new ones. */
async function wouldSettle(uow: UnitOfWork, kept: Kept): Promise<Settlement | undefined> {
  for (const deal of kept.deals.values()) {
    if (deal.stage !== 'closed_won') continue;
    const stored = isProvisionalId(deal.id) ? [] : await uow.payoutsOfDeal(deal.id);
    const settlement = settle(deal, [...stored, ...kept.payouts.filter((line) => line.dealId === deal.id)]);
    if (!isRefusal(settlement)) return settlement;
  }
  return undefined;
}
