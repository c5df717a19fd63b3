// One run's world: the simulation's own clock, the episode's service on a memory store behind
// the fault injector (in keys mode with its cast of principals and keys), and what the step
// under way has learned so far. Every module of the simulation reads the episode's service
// through here at call time, so that a fresh episode replaces it for all of them at once.
import type { Caller } from '../domain/access.ts';
import type { Snapshot } from '../domain/invariants.ts';
import { createPipelineService, type PipelineService } from '../service/pipeline-service.ts';
import { MemoryStore } from '../store/memory/memory-store.ts';
import { type FaultyStore, faultyStore } from './faulty-store.ts';
import { Cast } from './principals.ts';
import type { Dice } from './random.ts';
import type { KeysTally, SimulationOptions, SimulationReport } from './report.ts';
import type { SimViolation } from './tenancy.ts';

export const HOUR = 3_600_000;

/** The whole state the checks hold a step to, and the last event's number. */
export type SimSnapshot = Snapshot & { lastSeq: number };

/** A successful answer to hold to its caller's tenancy (and, for an unfiltered list, its completeness). */
export interface Answered {
  op: string;
  value: unknown;
  caller: Caller;
  complete?: 'deals' | 'gigs';
}

// Equal states serialize alike (bigints as their digits).
export const same = (a: unknown, b: unknown) =>
  JSON.stringify(a, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x)) ===
  JSON.stringify(b, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

export class World {
  /** The simulation's clock, epoch ms: the service's `now`. */
  machine = Date.parse('2030-01-07T09:00:00.000Z');
  store!: FaultyStore;
  service!: PipelineService;
  cast: Cast | undefined;
  readonly keysMode: boolean;

  // What the step under way learned, checked once its state is read: violations found on the
  // way, the caller its command ran as, and the successful answer to hold to its tenancy.
  found: SimViolation[] = [];
  stepCaller: Caller | undefined;
  /** For the trail: the operation and the key a step's command was sent with. */
  sent = '';
  answered: Answered | undefined;
  /** The state before the step under way. */
  before!: SimSnapshot;

  constructor(
    readonly dice: Dice,
    readonly options: SimulationOptions,
    readonly report: SimulationReport,
  ) {
    this.keysMode = options.keys === true;
  }

  /** Keys mode's tally (only ever asked for in keys mode). */
  get tally(): KeysTally {
    return this.report.keys as KeysTally;
  }

  /**
   * A fresh episode: a new memory store behind the fault injector, and the service on it; in
   * keys mode its cast of principals and their keys.
   */
  async fresh(): Promise<void> {
    const store = faultyStore(new MemoryStore());
    const service = createPipelineService(
      store,
      { now: () => this.machine },
      { claimTtlHours: 72, ...(this.keysMode ? { auth: 'keys' as const } : {}) },
    );
    const seeded = await service.run(service.platform.reset());
    const cast = this.keysMode
      ? await Cast.start(service, () => this.machine, this.dice.random, seeded.ok ? seeded.value : [])
      : undefined;
    this.store = store;
    this.service = service;
    this.cast = cast;
  }

  async snapshot(): Promise<SimSnapshot> {
    const store = this.store;
    const [deals, gigs, closers] = await store.read((r) =>
      Promise.all([r.listDeals({ limit: Number.MAX_SAFE_INTEGER }), r.listGigs({}), r.listClosers({})]),
    );
    const ledger = await store.read((r) => r.payoutsOfClosers(closers.map((c) => c.id)));
    return { deals, gigs, closers, payouts: [...ledger.values()].flat(), lastSeq: await store.lastSeq() };
  }

  /** Forgets what the last step learned. */
  beginStep(): void {
    this.found = [];
    this.stepCaller = undefined;
    this.sent = '';
    this.answered = undefined;
  }
}
