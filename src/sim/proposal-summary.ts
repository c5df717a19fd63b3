// D-61 at the end of each episode: the store keeps every refused proposal the steps saw
// recorded (a deal its newest KEPT_PER_DEAL), and the summary and the lists answer each caller
// exactly what those records and the deals' activity say: refusals counted from the records
// (dropped ones too), accepted moves from the executors' activity entries. In the demo one
// caller sees everything; in keys mode each principal sees its own (a Seller its deals', a
// closer its own proposals and moves), and each key's filter only that key's.
import type { Caller } from '../domain/access.ts';
import type { Snapshot } from '../domain/invariants.ts';
import { type Executor, KEPT_PER_DEAL, type ProposalSummary, type RefusedProposal } from '../domain/proposals.ts';
import type { SimViolation } from './tenancy.ts';
import { type SimSnapshot, same, type World } from './world.ts';

/** Whose records and moves a caller sees: everyone's, a Seller's deals', or a closer's own. */
type Scope = { sellerId?: string; closerId?: string };

const scopeOf = (caller: Caller | undefined): Scope =>
  caller === undefined || caller.kind === 'operator'
    ? {}
    : caller.kind === 'seller'
      ? { sellerId: caller.principal }
      : { closerId: caller.principal };

/** A deal's newest KEPT_PER_DEAL of `recorded` (oldest first), newest first. */
export function keptOf(recorded: readonly RefusedProposal[]): RefusedProposal[] {
  const perDeal = new Map<string, number>();
  const kept: RefusedProposal[] = [];
  for (let i = recorded.length - 1; i >= 0; i--) {
    const record = recorded[i] as RefusedProposal;
    const n = perDeal.get(record.dealId) ?? 0;
    perDeal.set(record.dealId, n + 1);
    if (n < KEPT_PER_DEAL) kept.push(record);
  }
  return kept;
}

function sees(s: Snapshot, scope: Scope, record: RefusedProposal): boolean {
  if (scope.sellerId !== undefined) return s.deals.find((d) => d.id === record.dealId)?.sellerId === scope.sellerId;
  if (scope.closerId !== undefined) return record.actor?.principal === scope.closerId;
  return true;
}

/** The summary as the records and the deals' activity make it. */
export function expectedSummary(
  s: Snapshot,
  recorded: readonly RefusedProposal[],
  scope: Scope,
  keyId?: string,
): ProposalSummary {
  const summary: ProposalSummary = { accepted: { agent: 0, human: 0 }, refused: { agent: 0, human: 0 }, byCode: {} };
  for (const record of recorded) {
    if (!sees(s, scope, record) || (keyId !== undefined && record.actor?.keyId !== keyId)) continue;
    summary.refused[record.by]++;
    summary.byCode[record.code] = (summary.byCode[record.code] ?? 0) + 1;
  }
  for (const deal of s.deals) {
    if (scope.sellerId !== undefined && deal.sellerId !== scope.sellerId) continue;
    const { closerId } = scope;
    if (closerId !== undefined && !s.gigs.some((g) => g.dealId === deal.id && g.closerId === closerId)) continue;
    for (const entry of deal.activity) {
      if (entry.by !== 'agent' && entry.by !== 'human') continue;
      if (closerId !== undefined && entry.actor?.principal !== closerId) continue;
      if (keyId !== undefined && entry.actor?.keyId !== keyId) continue;
      summary.accepted[entry.by as Executor]++;
    }
  }
  return summary;
}

const normal = (x: ProposalSummary) => ({
  accepted: { agent: x.accepted.agent, human: x.accepted.human },
  refused: { agent: x.refused.agent, human: x.refused.human },
  byCode: Object.fromEntries(Object.entries(x.byCode).sort(([a], [b]) => (a < b ? -1 : 1))),
});

const ids = (records: readonly RefusedProposal[]) => records.map((r) => r.id).join(' ');

/** Holds the store's records, every caller's summary (and each key's) and lists to the episode's steps. */
export async function checkSummaries(world: World, s: SimSnapshot): Promise<SimViolation[]> {
  const out: SimViolation[] = [];
  const problem = (message: string, ...at: string[]) => out.push({ invariant: 'proposals', message, ids: at });
  const tally = world.report.proposals;
  const kept = keptOf(world.recorded);
  if (!same(s.proposals, kept))
    problem(
      `the store keeps ${s.proposals.length} records (${ids(s.proposals).slice(0, 200)}), not the ${kept.length} the steps made`,
    );

  const views: { caller: Caller | undefined; keyIds: (string | undefined)[] }[] = [];
  const cast = world.cast;
  if (!cast) views.push({ caller: undefined, keyIds: [undefined, 'key_0001'] });
  else {
    for (const principal of cast.principals()) {
      const main = cast.keysOf(principal).find((k) => k.main) ?? cast.keysOf(principal)[0];
      const caller = main && (await cast.callerOf(main));
      if (!caller) {
        problem(`${principal}'s first key ${main?.id} no longer authenticates`);
        continue;
      }
      // The operator filters by anyone's key; a principal by its own (another's finds nothing of its).
      const keys = (principal === cast.operator.principal ? cast.keys : cast.keysOf(principal)).map((k) => k.id);
      views.push({ caller, keyIds: [undefined, ...keys] });
    }
  }
  const queries = world.service.queries;
  for (const { caller, keyIds } of views) {
    const who = caller ? `${caller.principal} (${caller.keyId})` : 'the demo';
    const scope = scopeOf(caller);
    for (const keyId of keyIds) {
      const got = await queries.proposalSummary(keyId === undefined ? {} : { keyId }, caller);
      const expected = expectedSummary(s, world.recorded, scope, keyId);
      tally.checked++;
      if (!same(normal(got), normal(expected)))
        problem(
          `${who}'s summary${keyId ? ` of ${keyId}` : ''} is ${JSON.stringify(normal(got))}, not ${JSON.stringify(normal(expected))}`,
        );
    }
    // The list: what the caller sees of the kept records, newest first, whole and a page at a time.
    const visible = kept.filter((r) => sees(s, scope, r));
    const all = await queries.listProposals({ limit: Number.MAX_SAFE_INTEGER }, caller);
    tally.checked++;
    if (ids(all) !== ids(visible)) problem(`${who} lists ${ids(all).slice(0, 300)}, not ${ids(visible).slice(0, 300)}`);
    const paged: RefusedProposal[] = [];
    for (let afterId: string | undefined, guard = 0; guard < 10_000; guard++) {
      const page = await queries.listProposals({ limit: 7, ...(afterId ? { afterId } : {}) }, caller);
      paged.push(...page);
      if (page.length < 7) break;
      afterId = page[page.length - 1]?.id;
    }
    if (ids(paged) !== ids(visible)) problem(`${who}'s pages of 7 hold ${ids(paged).slice(0, 300)}`);
    const first = visible[0];
    if (first) {
      const filters = [
        { by: first.by },
        { code: first.code },
        { dealId: first.dealId },
        // A key's proposal filters by its key; a person's (D-65) names no key to filter by.
        ...(first.actor?.keyId !== undefined ? [{ keyId: first.actor.keyId }] : []),
      ];
      for (const filter of filters) {
        const [field, value] = Object.entries(filter)[0] as [string, string];
        const want = visible.filter((r) =>
          field === 'keyId' ? r.actor?.keyId === value : (r as unknown as Record<string, unknown>)[field] === value,
        );
        const got = await queries.listProposals({ ...filter, limit: Number.MAX_SAFE_INTEGER }, caller);
        tally.checked++;
        if (ids(got) !== ids(want)) problem(`${who} lists ${field} ${value} as ${ids(got).slice(0, 300)}`);
      }
    }
  }
  return out;
}
