// The platform's own writes: the demo reset and its seed (D-27), the demo clock (D-19), and the
// timers that fire when it is due (D-16, D-17, src/service/timers.ts).
import type { PipelineCommand } from '../domain/commands.ts';
import { multiplyHalfUp } from '../domain/decimal.ts';
import { initialState } from '../domain/state.ts';
import type { Store, UnitOfWork } from '../store/store.ts';
import type { Telemetry } from '../telemetry.ts';
import { ApprovalCommands } from './approvals.ts';
import type { UnitRunner } from './execute.ts';
import type { LedgerCommands } from './ledger-commands.ts';
import { loadDeal, loadGig } from './load.ts';
import type { Clock } from './platform-clock.ts';
import type { Result } from './result.ts';
import { HOUR_MS, notBeforeLatest, type Steps } from './steps.ts';
import { runTimers, type TimerHost } from './timers.ts';
import type { UnitCommand } from './unit-command.ts';

export const SEED_CLOSERS = [
  { name: 'Ada Brightwater (fictional)', industries: ['saas', 'fintech'] },
  { name: 'Milo Fenwick (fictional)', industries: ['healthcare', 'logistics'] },
] as const;

/** Where the demo clock stands after a move, and the stored offset that put it there. */
export interface ClockMove {
  now: number;
  offsetMs: number;
}

export class Platform {
  constructor(
    private readonly store: Store,
    private readonly runner: UnitRunner,
    private readonly steps: Steps,
    private readonly clock: Clock,
    private readonly telemetry: Telemetry,
    private readonly eventRetentionHours: number,
    /** After a reset committed (keys mode: the key ring forgets closers' keys). */
    private readonly afterReset: () => void = () => undefined,
    /** D-27: the demo seeds the two fictional closers; keys mode, a production, seeds none (D-3). */
    private readonly seeds = true,
    /** D-80: the ledger's releases of held earnings, and how long an earning is held. */
    private readonly holds?: { ledger: LedgerCommands; holdMs: number },
  ) {
    this.approvals = new ApprovalCommands(store, steps);
  }

  /** D-70: the sweep ends approvals past their time, or whose deal moved. */
  private readonly approvals: ApprovalCommands;

  /**
   * D-27: wipe everything (stored idempotency answers too) and seed the two fictional closers (in
   * the demo; keys mode seeds none, D-3).
   */
  reset(): UnitCommand<string[]> {
    return {
      work: async (uow) => {
        await uow.wipe();
        // D-41: the first event after a reset says so; the seeded closers' enrolments follow. The
        // demo clock is back at the machine's.
        const now = this.clock.now();
        await uow.publish([{ type: 'demo.reset', at: now, data: {} }], now);
        return this.seed(uow, now);
      },
      committed: () => {
        this.steps.platform.replace(0);
        this.afterReset();
      },
    };
  }

  /** D-27: a service that starts on an empty store seeds the two closers (D-3: not in keys mode); it never wipes. */
  async seedIfEmpty(): Promise<void> {
    if (!this.seeds) return;
    await this.runner.result({
      work: async (uow) => {
        // Two instances starting at once on one empty database must not both seed.
        await uow.lock('seed');
        const counts = await uow.counts();
        if (counts.deals === 0 && counts.closers === 0) await this.seed(uow, await this.steps.now(uow));
      },
    });
  }

  private async seed(uow: UnitOfWork, now: number): Promise<string[]> {
    const ids: string[] = [];
    if (!this.seeds) return ids;
    for (const closer of SEED_CLOSERS) {
      const applied = await this.steps.apply(uow, initialState(), { type: 'EnrolCloser', ...closer }, now);
      ids.push(...applied.state.closers.keys());
    }
    return ids;
  }

  /**
   * D-19: moves the demo clock forward (whole milliseconds, rounded half-up) and, once the move
   * committed, runs the platform timers at once.
   */
  advanceClock(hours: number): UnitCommand<ClockMove> {
    // From the decimal the caller wrote: hours × HOUR_MS in binary floating point would make an
    // exact half (0.00000875 h = 31.5 ms) 31.499999999999996 and round it down.
    const deltaMs = multiplyHalfUp(HOUR_MS, hours);
    return {
      work: async (uow) => {
        const offsetMs = await uow.advanceClockOffsetMs(deltaMs);
        return { now: this.clock.now() + offsetMs, offsetMs };
      },
      committed: async ({ offsetMs }) => {
        this.steps.platform.learn(offsetMs);
        await this.runTimers();
      },
    };
  }

  /** When this instance last ran the timers' purges (D-248). */
  private readonly lastForgot: { at?: number } = {};

  /** D-16, D-17: fires every timer due now (src/service/timers.ts). Returns how many fired. */
  async runTimers(): Promise<number> {
    const started = performance.now();
    try {
      const fired = await runTimers(this.timerHost, this.lastForgot);
      this.telemetry.timersRan((performance.now() - started) / 1000, fired);
      return fired;
    } catch (error) {
      this.telemetry.timersRan((performance.now() - started) / 1000, 'failed');
      throw error;
    }
  }

  /** One timer in its own unit of work; false when it was refused (no longer due). */
  private async fire(work: (uow: UnitOfWork) => Promise<void>): Promise<boolean> {
    const result: Result<void> = await this.runner.result({ work });
    return result.ok;
  }

  /** What the platform timers need of the service. */
  private readonly timerHost: TimerHost = {
    machineNow: () => this.clock.now(),
    // Read again on every run: should a notice of another instance's move have been lost, the
    // timers still see it within one interval.
    platformNow: () => this.steps.platform.refresh(),
    // Both purges in one unit of work, sent together (one round trip and a COMMIT on a database).
    forget: async (answersBefore, eventsBefore) => {
      await this.store.transaction((uow) =>
        Promise.all([uow.purgeAnswers(answersBefore), uow.purgeEvents(eventsBefore)]),
      );
    },
    eventRetentionMs: () => this.eventRetentionHours * HOUR_MS,
    // One statement each: no transaction around them (a timers' run with nothing due is its reads).
    dueGigs: (now, limit) =>
      this.store.read(async (reader) => (await reader.dueGigs(now, limit)).map((g) => g.id), { oneStatement: true }),
    dueDeals: (now, limit) =>
      this.store.read(async (reader) => (await reader.dueDeals(now, limit)).map((d) => d.id), { oneStatement: true }),
    fireGig: (gigId, now) =>
      this.fire(async (uow) => {
        const gig = await uow.getGig(gigId);
        const command: PipelineCommand | undefined =
          gig?.status === 'claimed'
            ? { type: 'ReopenGig', gigId, platform: true }
            : gig?.status === 'open'
              ? { type: 'ExpireGig', gigId }
              : undefined;
        if (!command) return;
        const { state, dealId } = await loadGig(uow, gigId);
        await this.steps.apply(uow, state, command, notBeforeLatest(state.deals.get(dealId), now));
      }),
    dueApprovals: (now, limit) =>
      this.store.read(async (reader) => (await reader.approvals.due(now, limit)).map((a) => a.id), {
        oneStatement: true,
      }),
    endApproval: async (approvalId, now) => {
      const result = await this.runner.result(this.approvals.end(approvalId, now));
      return result.ok && result.value;
    },
    dueReleases: async (now, limit) => {
      const holds = this.holds;
      if (holds === undefined) return [];
      return this.store.read(
        async (reader) => (await reader.ledger.heldEarnings(now - holds.holdMs, limit)).map((t) => t.id),
        { oneStatement: true },
      );
    },
    release: async (earningId, now) => {
      const holds = this.holds;
      if (holds === undefined) return false;
      const result = await this.runner.result({ work: (uow) => holds.ledger.release(uow, earningId, now) });
      return result.ok && result.value;
    },
    fireStall: (dealId, now) =>
      this.fire(async (uow) => {
        const state = await loadDeal(uow, dealId);
        await this.steps.apply(
          uow,
          state,
          { type: 'StallDeal', dealId },
          notBeforeLatest(state.deals.get(dealId), now),
        );
      }),
  };
}
