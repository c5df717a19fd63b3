// A key's day (D-68, D-70), step by step: every move a step committed through a key with a policy
// was within it (a stage it may move to, a deal no bigger than it may act on, a close at no less
// than its least share of the list value and within the day's closes and closed value), unless a
// person approved it, which passes exactly the limits the approval was held for. And every Seller
// key's usage of a platform day, as the store counts it, is the closes won committed through the
// key that day, as the deals' activity shows them (a close approved included).
import type { Approval } from '../domain/approvals.ts';
import type { Deal } from '../domain/records.ts';
import { closesByKey, dayOf, usedOn } from './policies.ts';
import type { Cast } from './principals.ts';
import type { SimViolation } from './tenancy.ts';
import type { SimSnapshot, World } from './world.ts';

/** The moves a step committed through a key with a policy, each held to it. */
export function checkCommits(world: World, before: SimSnapshot, after: SimSnapshot): SimViolation[] {
  const cast = world.cast as Cast;
  const out: SimViolation[] = [];
  const earlier = new Map(before.deals.map((d) => [d.id, d]));
  const used = closesByKey(before.deals);
  // Closes of this step so far, per key and day: a sell moves several times in one step.
  const stepCloses = new Map<string, { closes: number; value: number }>();
  const approvedNow = after.approvals.filter(
    (a) => a.status === 'approved' && before.approvals.find((b) => b.id === a.id)?.status === 'pending',
  );
  for (const deal of after.deals) {
    const was = earlier.get(deal.id);
    const from = was?.activity.length ?? 0;
    for (let i = from; i < deal.activity.length; i++) {
      const entry = deal.activity[i] as Deal['activity'][number];
      const stage = i === 0 ? undefined : deal.activity[i - 1]?.stage;
      const keyId = entry.actor?.keyId;
      if (entry.stage === stage || keyId === undefined || entry.actor?.userId !== undefined) continue;
      const policy = cast.keys.find((k) => k.id === keyId)?.policy;
      if (policy === undefined || i === 0) continue;
      const approval: Approval | undefined = entry.actor?.approvedBy
        ? approvedNow.find((a) => a.dealId === deal.id && a.keyId === keyId)
        : undefined;
      if (entry.actor?.approvedBy && approval === undefined)
        out.push(
          problem(`${deal.id} moved to ${entry.stage} through ${keyId} approved by no approval of the step`, deal.id),
        );
      const waived = new Set<string>(approval?.limits.map((l) => l.limit) ?? []);
      const over: string[] = [];
      if (policy.maxDealValueCents !== undefined && deal.listValueCents > policy.maxDealValueCents)
        over.push(`a list value of ${deal.listValueCents} above ${policy.maxDealValueCents}`);
      if (policy.allowedMoves && !policy.allowedMoves.includes(entry.stage) && !waived.has('allowedMoves'))
        over.push(`a move to ${entry.stage}, not among ${policy.allowedMoves}`);
      if (entry.stage === 'closed_won') {
        const value = deal.finalValueCents ?? 0;
        const day = dayOf(entry.at);
        const mark = `${keyId} ${day}`;
        const before = usedOn(used, keyId, day);
        const inStep = stepCloses.get(mark) ?? { closes: 0, value: 0 };
        const closes = before.closes + inStep.closes + 1;
        const closed = before.closedValueCents + inStep.value + value;
        stepCloses.set(mark, { closes: inStep.closes + 1, value: inStep.value + value });
        const least = policy.minCloseValuePct === undefined ? 0 : deal.listValueCents * policy.minCloseValuePct - 1;
        if (value < least && !waived.has('minCloseValuePct'))
          over.push(`a close at ${value} below ${policy.minCloseValuePct} of ${deal.listValueCents}`);
        if (policy.closesPerDay !== undefined && closes > policy.closesPerDay && !waived.has('closesPerDay'))
          over.push(`close ${closes} of ${day}, past ${policy.closesPerDay}`);
        const most = policy.closedValuePerDayCents;
        if (most !== undefined && closed > most && !waived.has('closedValuePerDayUsd'))
          over.push(`${closed} closed on ${day}, past ${most}`);
      }
      if (over.length > 0)
        out.push(
          problem(
            `${deal.id} was moved through ${keyId}${approval ? ` (approved ${approval.id})` : ''} beyond its policy ${JSON.stringify(policy)}: ${over.join('; ')}`,
            deal.id,
          ),
        );
    }
  }
  return out;
}

/** Every Seller key's usage of each day it closed on, and of today, against its closes. */
export async function checkUsage(world: World, after: SimSnapshot): Promise<SimViolation[]> {
  const cast = world.cast as Cast;
  const closes = closesByKey(after.deals);
  const today = dayOf(await world.platformNow());
  const asked: [string, string][] = [];
  for (const key of cast.keys) {
    if (!key.principal.startsWith('seller_')) continue;
    const days = new Set([today, ...(closes.get(key.id)?.keys() ?? [])]);
    for (const day of days) asked.push([key.id, day]);
  }
  const usage = await world.store.read((r) => Promise.all(asked.map(([key, day]) => r.accounts.keyUsage(key, day))));
  const out: SimViolation[] = [];
  asked.forEach(([keyId, day], i) => {
    const got = usage[i];
    const want = usedOn(closes, keyId, day);
    if (got?.closes !== want.closes || got.closedValueCents !== want.closedValueCents)
      out.push(
        problem(
          `${keyId}'s usage of ${day} is ${got?.closes} closes, ${got?.closedValueCents} cents; its closes won that day are ${want.closes}, ${want.closedValueCents} cents`,
          keyId,
        ),
      );
  });
  return out;
}

const problem = (message: string, ...ids: string[]): SimViolation => ({ invariant: 'approvals', message, ids });
