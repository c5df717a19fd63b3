// One run's world: the simulation's own clock, the episode's service on a memory store behind
// the fault injector (in keys mode with its cast of principals and keys, and its event
// streams), and what the step under way has learned so far. Every module of the simulation
// reads the episode's service through here at call time, so that a fresh episode replaces it
// for all of them at once.
import type { Caller } from '../domain/access.ts';
import type { Approval } from '../domain/approvals.ts';
import type { Snapshot } from '../domain/invariants.ts';
import type { Books } from '../domain/ledger/ledger-invariants.ts';
import type { Executor, ProposedMove, RefusedProposal } from '../domain/proposals.ts';
import type { StreamFilter } from '../http/stream-client.ts';
import { createPipelineService, type PipelineService } from '../service/pipeline-service.ts';
import { MemoryStore } from '../store/memory/memory-store.ts';
import { readBooks } from './books.ts';
import { type FaultyStore, faultyStore } from './faulty-store.ts';
import { Cast, operatorKeyText, type SimKey } from './principals.ts';
import type { Dice } from './random.ts';
import type { KeysTally, SimulationOptions, SimulationReport } from './report.ts';
import type { SimViolation } from './tenancy.ts';

export const HOUR = 3_600_000;

/** An event stream a key opened in an episode, as the simulation follows it. */
export interface SimStream {
  key: SimKey;
  /** What the key ring made of the key when the stream opened: the pump's client's caller. */
  caller: Caller;
  filter: StreamFilter;
  /** Every event up to it was delivered (or is not the stream's). */
  cursor: number;
  /** Opened behind the feed's end: its next feeding reads the feed as its caller. */
  catchingUp: boolean;
  open: boolean;
}

/**
 * The whole state the checks hold a step to, the books among it (D-79), the last event's number,
 * the refused proposals kept (D-61) and the approvals of held proposals (D-69), each newest first.
 */
export type SimSnapshot = Snapshot & {
  books: Books;
  lastSeq: number;
  proposals: RefusedProposal[];
  approvals: Approval[];
};

/**
 * D-80: the episodes' holds, in platform days, in turn: one, none (a release at the next timers'
 * run, before most refunds) and two; the clock steps, of up to 130 hours, move past them, so that
 * refunds meet earnings held and released alike. Not drawn from the dice: a seed draws the same
 * whatever the holds.
 */
const HOLDS = [1, 0, 2];

/** How a proposal was sent (D-37, D-47, D-48): a dry run and a stale If-Match record nothing. */
export type ProposalMode = 'plain' | 'dry' | 'keyed' | 'if-match' | 'stale';

/** A proposal the step sent to the service (the first call: not the cross-tenant probe's). */
export interface Proposed {
  by: Executor;
  /** The deal advanced, or the gig moved or revived. */
  dealId?: string;
  gigId?: string;
  proposal: ProposedMove;
  mode: ProposalMode;
}

/** A successful answer to hold to its caller's tenancy (and, for an unfiltered list, its completeness). */
export interface Answered {
  op: string;
  value: unknown;
  caller: Caller;
  complete?: 'deals' | 'gigs' | 'proposals' | 'approvals';
}

/** A decision the step under way sent (D-70): the approval, and each decider's caller past the door. */
export interface Deciding {
  approvalId: string;
  action: 'approve' | 'deny';
  callers: Caller[];
  /** A denial's reason. */
  reason?: string;
}

// Equal states serialize alike (bigints as their digits).
export const same = (a: unknown, b: unknown) =>
  JSON.stringify(a, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x)) ===
  JSON.stringify(b, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

/**
 * Whether two states are alike, list by list: a record the store handed out again (the very
 * object: the memory store keeps each record whole and replaces it on a write) is, any other as
 * `same` says. The same answer as `same` on the whole, without serializing every record twice a
 * step, which was the run's biggest cost (and grew with the books, D-79).
 */
export function sameState(a: object, b: object): boolean {
  const [x, y] = [a as Record<string, unknown>, b as Record<string, unknown>];
  for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
    const [was, is] = [x[key], y[key]];
    if (was === is) continue;
    if (!Array.isArray(was) || !Array.isArray(is)) {
      if (!same(was, is)) return false;
    } else if (was.length !== is.length || was.some((record, i) => record !== is[i] && !same(record, is[i])))
      return false;
  }
  return true;
}

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
  /** The proposal the step under way sent, if it sent one. */
  proposed: Proposed | undefined;
  /** The decision of an approval the step under way sent, if it sent one. */
  deciding: Deciding | undefined;
  /** The state before the step under way. */
  before!: SimSnapshot;
  /**
   * Every refused proposal the episode recorded, oldest first, as the steps saw each appear:
   * what the summary's counts must add up to, dropped records included.
   */
  recorded: RefusedProposal[] = [];
  /** Keys mode: the episode's event streams (D-76), open and ended. */
  streams: SimStream[] = [];
  /** Numbers the idempotency keys of keyed proposals. */
  private keys = 0;
  /** How many episodes began: which hold the next one has. */
  private begun = 0;

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
    // OPERATOR_KEY: the operator's first key, and the secret mailed tokens are drawn under (D-63).
    const operatorKey = this.keysMode ? operatorKeyText(this.dice.random) : '';
    const service = createPipelineService(
      store,
      { now: () => this.machine },
      {
        claimTtlHours: 72,
        payoutHoldDays: HOLDS[this.begun++ % HOLDS.length],
        ...(this.keysMode ? { auth: 'keys' as const, operatorKey } : {}),
      },
    );
    const seeded = await service.run(service.platform.reset());
    const cast = this.keysMode
      ? await Cast.start(service, store, () => this.machine, operatorKey, this.dice, seeded.ok ? seeded.value : [])
      : undefined;
    this.store = store;
    this.service = service;
    this.cast = cast;
    this.recorded = [];
    this.streams = [];
  }

  /** A new idempotency key. */
  idempotencyKey(): string {
    return `sim-${++this.keys}`;
  }

  async snapshot(): Promise<SimSnapshot> {
    const store = this.store;
    const all = Number.MAX_SAFE_INTEGER;
    const [deals, gigs, closers, proposals, approvals] = await store.read((r) =>
      Promise.all([
        r.listDeals({ limit: all }),
        r.listGigs({}),
        r.listClosers({}),
        r.proposals.list({ limit: all }),
        r.approvals.list({ limit: all }),
      ]),
    );
    const ledger = await store.read((r) => r.payoutsOfClosers(closers.map((c) => c.id)));
    const payouts = [...ledger.values()].flat();
    const books = await readBooks(store, deals, payouts, await this.platformNow());
    return { deals, gigs, closers, payouts, books, lastSeq: await store.lastSeq(), proposals, approvals };
  }

  /** The platform's time (D-19): the machine clock and the demo clock's offset, as the store keeps it. */
  async platformNow(): Promise<number> {
    return this.machine + (await this.store.read((r) => r.clockOffsetMs()));
  }

  /** Forgets what the last step learned. */
  beginStep(): void {
    this.found = [];
    this.stepCaller = undefined;
    this.sent = '';
    this.answered = undefined;
    this.proposed = undefined;
    this.deciding = undefined;
  }

  /** Notes the proposal a step sends; the cross-tenant probe's, sent after it, is not the step's. */
  propose(proposed: Proposed): void {
    this.proposed ??= proposed;
  }
}
