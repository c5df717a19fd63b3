// D-68, D-69: the proposing key's policy, applied inside the unit of work that commits. When the
// policy counts the day, any number of concurrent proposals through one key commit no more closes
// or value than it allows: they meet one at a time behind the key's lock, each seeing the closes
// the ones before it committed. D-278: where the lock is taken. An optimistic unit reads no usage:
// it weighs its moves as if the day were unused, and its close is written behind the key's lock
// only if the day's closes, it added, stay within the limits (the lock then spans the write and
// the commit alone). Otherwise, or if the policy stopped a move, the unit runs again with the lock
// taken and the usage read before it weighs (the usage only grows within a day, so nothing the
// policy allowed on the day's real usage is lost, and what it stops is told with the real usage).
import type { Caller } from '../domain/access.ts';
import type { PipelineCommand } from '../domain/commands.ts';
import {
  countsTheDay,
  dailyLimits,
  emptyUsage,
  type KeyPolicy,
  type KeyUsage,
  type LimitCheck,
  type LimitName,
  type PolicyVerdict,
  usageDay,
  weighMove,
} from '../domain/policy.ts';
import type { Deal } from '../domain/records.ts';
import type { PipelineState } from '../domain/state.ts';
import { UnitConflictError, type UnitOfWork } from '../store/store.ts';
import { isDryRun } from './dry-run.ts';
import type { MoveGuard } from './step.ts';

/** The key a proposal came through, its policy and its usage of the day. */
export interface KeyBounds {
  readonly keyId: string;
  readonly principal: string;
  readonly policy?: KeyPolicy;
  readonly usage: KeyUsage;
  /** D-278: the usage was not read (taken as none): the close's write checks the daily limits. */
  readonly unread?: boolean;
}

/** A move the policy stopped: the deal before it, the command, and the verdict. */
export interface Stop {
  readonly dealId: string;
  readonly deal: Deal;
  readonly command: Extract<PipelineCommand, { type: 'AdvanceDeal' }>;
  readonly verdict: PolicyVerdict;
}

/**
 * The bounds of a Seller's key (a person has none: D-62's people act by their role). Reads the
 * day's usage under the key's lock only when the policy has a daily limit, and only in a unit that
 * is not optimistic, or a dry run (which shows the usage, D-71, and commits nothing).
 */
export async function keyBounds(
  uow: UnitOfWork,
  caller: Caller | undefined,
  now: number,
  policy: KeyPolicy | undefined = caller?.policy,
): Promise<KeyBounds | undefined> {
  if (caller === undefined || caller.kind !== 'seller' || caller.keyId === undefined || caller.userId !== undefined)
    return undefined;
  const day = usageDay(now);
  let usage = emptyUsage(day);
  const bounds = { keyId: caller.keyId, principal: caller.principal, policy };
  if (!countsTheDay(policy)) return { ...bounds, usage };
  if (uow.runsAgainOnConflict && !isDryRun(uow)) return { ...bounds, usage, unread: true };
  await uow.lock(`key-usage:${caller.keyId}`);
  usage = await uow.accounts.keyUsage(caller.keyId, day);
  return { ...bounds, usage };
}

/**
 * D-278: a move stopped on a usage not read may be stopped for want of it (or told with the wrong
 * figures): the unit runs again, reading it behind the key's lock.
 */
export function stoppedUnread(bounds: KeyBounds | undefined, stop: Stop | undefined): void {
  if (stop !== undefined && bounds?.unread === true)
    throw new UnitConflictError("a move over the key's policy, weighed without the day's usage");
}

/** What a move did to its deal: the stage it went to, and its final value when it closed won. */
export function moveOf(before: PipelineState, after: PipelineState, dealId: string) {
  const from = before.deals.get(dealId) as Deal;
  const to = after.deals.get(dealId) as Deal;
  const moved = to.stage !== from.stage ? to.stage : undefined;
  const closeValueCents = moved === 'closed_won' ? to.finalValueCents : undefined;
  return { before: from, to: moved, closeValueCents };
}

/**
 * The guard of the agent's advances through a key with a policy (step.ts MoveGuard): each
 * accepted move weighed with the closes before it in this unit counted too (a sell closes once).
 * `seen` hears every verdict, those within the policy too (a dry run shows them, D-71).
 */
export function policyGuard(
  bounds: KeyBounds,
  waived: readonly LimitName[] = [],
  seen?: (verdict: PolicyVerdict) => void,
): MoveGuard<Stop> | undefined {
  const policy = bounds.policy;
  if (policy === undefined) return undefined;
  return (before, after, command) => {
    if (command.type !== 'AdvanceDeal') return undefined;
    const move = moveOf(before, after, command.dealId);
    const verdict = weighMove(policy, move, bounds.usage, waived);
    seen?.(verdict);
    return verdict.outcome === 'commit' ? undefined : { dealId: command.dealId, deal: move.before, command, verdict };
  };
}

/**
 * D-71: what a dry run says of the policy: the outcome the real call would meet (the first move
 * stopped, or commit), and every limit the moves met, each as the last move left it.
 */
export function dryVerdict(verdicts: readonly PolicyVerdict[], stop: Stop | undefined): PolicyVerdict {
  const limits = new Map<string, LimitCheck>();
  for (const verdict of verdicts) for (const check of verdict.limits) limits.set(check.limit, check);
  // The stopped move's limits are the ones that decided: they win over an earlier move's.
  for (const check of stop?.verdict.limits ?? []) limits.set(check.limit, check);
  return { outcome: stop?.verdict.outcome ?? 'commit', limits: [...limits.values()] };
}

/**
 * D-68: a close won through the key counts in its usage of the day, written in the unit that
 * commits it (every Seller's key, with a policy or not: a policy set later sees the day's closes).
 */
export async function countClose(
  uow: UnitOfWork,
  bounds: KeyBounds | undefined,
  before: Deal | undefined,
  after: Deal,
  waived: readonly LimitName[] = [],
): Promise<void> {
  if (bounds === undefined) return;
  if (after.stage !== 'closed_won' || before?.stage === 'closed_won') return;
  const usage = { day: bounds.usage.day, closes: 1, closedValueCents: after.finalValueCents ?? 0 };
  // D-278: a policy that counts the day has its closes written behind the key's lock, within its
  // daily limits (checked again there: the usage may not have been read, `unread`).
  const within = countsTheDay(bounds.policy) ? (dailyLimits(bounds.policy, waived) ?? {}) : undefined;
  await uow.accounts.addKeyUsage(bounds.keyId, bounds.principal, usage, within);
}
