// One step of a unit of work: decide a command on the loaded state (taking ids only once the gate
// has accepted, D-28), then write what the decision changed and publish its events (D-40).
import type { DecisionContext, PipelineCommand } from '../domain/commands.ts';
import { decide } from '../domain/decide.ts';
import { type PipelineEvent, WRITES, writtenId } from '../domain/events.ts';
import { formatId, type IdKind } from '../domain/ids.ts';
import { publicEvents } from '../domain/public-events.ts';
import type { Closer, Deal, Gig } from '../domain/records.ts';
import { evolveAll, type PipelineState } from '../domain/state.ts';
import { versionMismatch } from '../domain/version.ts';
import type { UnitOfWork } from '../store/store.ts';
import type { Telemetry } from '../telemetry.ts';
import { isDryRun } from './dry-run.ts';
import { RefusedError, type WriteOptions } from './unit.ts';

/** What a decision needs of the service's configuration. */
export interface StepSettings {
  claimTtlMs: number;
  /** Where the gate's decisions are reported. */
  telemetry: Telemetry;
}

const PLACEHOLDER_IDS: Record<IdKind, string> = { deal: 'deal_pending', gig: 'gig_pending', closer: 'closer_pending' };

/** The kinds of record a decision creates, each needing a fresh id. */
function createdKinds(events: readonly PipelineEvent[]): IdKind[] {
  const kinds: IdKind[] = [];
  for (const event of events) {
    const { kind, creates } = WRITES[event.type];
    if (creates && kind !== 'ledger' && !kinds.includes(kind)) kinds.push(kind);
  }
  return kinds;
}

/** D-47: refuses (412, rolling the unit back) when the caller's If-Match names another version. */
export function expectVersion(state: PipelineState, dealId: string, options: WriteOptions | undefined): void {
  if (options?.ifMatch === undefined) return;
  const refusal = versionMismatch(state.deals.get(dealId) as Deal, options.ifMatch);
  if (refusal) throw new RefusedError(refusal);
}

function addOnce(ids: string[], id: string): void {
  if (!ids.includes(id)) ids.push(id);
}

/**
 * Decides one command against the loaded state and returns the state after it (persist, below,
 * stores it). Ids are taken only once the gate has accepted (D-28: a refusal takes
 * none, and on PostgreSQL a number once taken is never given back): the command is decided
 * with placeholder ids, the kinds its events create are taken, and it is decided again,
 * deterministically, with them.
 */
export async function decideStep(
  uow: UnitOfWork,
  state: PipelineState,
  command: PipelineCommand,
  now: number,
  { claimTtlMs, telemetry }: StepSettings,
) {
  const context = (nextIds: Record<IdKind, string>): DecisionContext => ({ now, claimTtlMs, nextIds });
  let decision = decide(state, command, context(PLACEHOLDER_IDS));
  telemetry.decided(command.type, decision.ok ? undefined : decision.refusal.code, isDryRun(uow));
  if (!decision.ok) throw new RefusedError(decision.refusal);
  const needed = createdKinds(decision.events);
  if (needed.length > 0) {
    const ids = { ...PLACEHOLDER_IDS };
    // A store that can take the numbers with its write reserves the ids (store.ts); a dry run
    // shows real ids, so it takes them.
    if (uow.reserveId && !isDryRun(uow)) {
      for (const kind of needed) ids[kind] = uow.reserveId(kind);
    } else {
      const numbers = await Promise.all(needed.map((kind) => uow.takeNumber(kind)));
      needed.forEach((kind, i) => {
        ids[kind] = formatId(kind, numbers[i]);
      });
    }
    decision = decide(state, command, context(ids));
    if (!decision.ok) throw new Error(`decision changed with its ids: ${decision.refusal.message}`);
  }
  return { state: evolveAll(state, decision.events), events: decision.events, escalation: decision.escalation };
}

/**
 * Writes what a decision changed (`state` is the state after it, `before` the one it was
 * made on) and publishes its public events (D-40) in the same unit of work, recorded at
 * `recordedAt` (machine time, which retention counts; `now` is the platform's, the events' own).
 */
export async function persist(
  uow: UnitOfWork,
  before: PipelineState,
  state: PipelineState,
  events: PipelineEvent[],
  now: number,
  recordedAt: number,
) {
  // Lists, not sets: a unit of work touches a record or two of each kind.
  const deals: string[] = [];
  const gigs: string[] = [];
  const closers: string[] = [];
  const lists = { deal: deals, gig: gigs, closer: closers };
  for (const event of events) {
    const { kind } = WRITES[event.type];
    if (kind === 'ledger') continue;
    addOnce(lists[kind], writtenId(event) as string);
    // A fulfilment also updates the claimant's Register.
    if (event.type === 'GigFulfilled') {
      const closerId = state.gigs.get(event.gigId)?.closerId;
      if (closerId) addOnce(closers, closerId);
    }
  }
  for (const id of deals) await uow.putDeal(state.deals.get(id) as Deal);
  for (const id of gigs) await uow.putGig(state.gigs.get(id) as Gig);
  for (const id of closers) await uow.putCloser(state.closers.get(id) as Closer);
  // Appended in event order, sent together (one round trip on a database).
  await Promise.all([
    ...events.flatMap((event) => (event.type === 'PayoutPosted' ? [uow.appendPayout(event.line)] : [])),
    uow.publish(publicEvents(before, events, now), recordedAt),
  ]);
}
