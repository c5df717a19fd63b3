// The platform timers (D-16, D-17): claims that expire, open gigs nobody claims, deals that
// stall, approvals past their time, earnings whose hold ended (D-80). Every run fires what is due
// at one instant: gig timers first, then deal stalls, approvals and releases, each in due order,
// each in its own unit of work (a timer that is no longer due is skipped). It first
// forgets the idempotency answers older than 24 hours of real time (D-37) and the feed's events
// older than its retention (D-41, EVENT_RETENTION_HOURS).
import { IDEMPOTENCY_TTL_MS } from './idempotency.ts';

/** What the timers need of the service. */
export interface TimerHost {
  /** Machine time (idempotency keys age in real time). */
  machineNow(): number;
  /** The platform's time: the machine clock plus the demo clock's offset. */
  platformNow(): Promise<number>;
  /** Forgets the stored answers and the feed's events recorded before these (one unit of work). */
  forget(answersBefore: number, eventsBefore: number): Promise<void>;
  /** How long the feed keeps an event, in real time. */
  eventRetentionMs(): number;
  /** Ids of gigs (deals) whose timer fell due at or before `now`, earliest first. */
  dueGigs(now: number, limit: number): Promise<string[]>;
  dueDeals(now: number, limit: number): Promise<string[]>;
  /** Fires one timer in its own unit of work; false when it was refused (no longer due). */
  fireGig(gigId: string, now: number): Promise<boolean>;
  fireStall(dealId: string, now: number): Promise<boolean>;
  /** D-70: ids of pending approvals past their time or whose deal moved, oldest first. */
  dueApprovals(now: number, limit: number): Promise<string[]>;
  /** Ends one (expired or superseded) in its own unit of work; false when it was no longer pending. */
  endApproval(approvalId: string, now: number): Promise<boolean>;
  /** D-80: ids of held earnings whose hold ended by `now`, oldest first. */
  dueReleases(now: number, limit: number): Promise<string[]>;
  /** Moves one to its closer's available account in its own unit of work; false when nothing moved. */
  release(earningId: string, now: number): Promise<boolean>;
}

const BATCH = 100;
/**
 * D-248: the purges run at most once a minute of machine time (an idle instance's timers are then
 * a few reads). A stored answer past its 24 hours is never replayed meanwhile (the
 * replay checks its age), and the feed may keep an event up to a minute past its retention.
 */
export const FORGET_EVERY_MS = 60_000;
/**
 * The event loop gets its turn at least this often during a run (the goal: a run never holds it
 * for more than 10 ms, however much is due). On the memory store every unit of work resolves at
 * once, so a run with thousands due would otherwise hold it throughout.
 */
const SLICE_MS = 2;
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Fires every timer due now; returns how many fired. */
export async function runTimers(host: TimerHost, lastForgot?: { at?: number }): Promise<number> {
  const machineNow = host.machineNow();
  if (lastForgot?.at === undefined || machineNow - lastForgot.at >= FORGET_EVERY_MS || machineNow < lastForgot.at) {
    await host.forget(machineNow - IDEMPOTENCY_TTL_MS + 1, machineNow - host.eventRetentionMs());
    if (lastForgot) lastForgot.at = machineNow;
  }
  const now = await host.platformNow();
  // A record tried once in this run is not tried again, whatever the next batch says.
  const tried = new Set<string>();
  let fired = 0;
  let sliceStart = performance.now();
  const sweep = async (due: () => Promise<string[]>, fire: (id: string) => Promise<boolean>) => {
    for (;;) {
      const batch = (await due()).filter((id) => !tried.has(id));
      if (batch.length === 0) return;
      for (const id of batch) {
        tried.add(id);
        if (await fire(id)) fired++;
        if (performance.now() - sliceStart >= SLICE_MS) {
          await turn();
          sliceStart = performance.now();
        }
      }
    }
  };
  await sweep(
    () => host.dueGigs(now, BATCH),
    (id) => host.fireGig(id, now),
  );
  await sweep(
    () => host.dueDeals(now, BATCH),
    (id) => host.fireStall(id, now),
  );
  await sweep(
    () => host.dueApprovals(now, BATCH),
    (id) => host.endApproval(id, now),
  );
  await sweep(
    () => host.dueReleases(now, BATCH),
    (id) => host.release(id, now),
  );
  return fired;
}
