// The checks a step is held to beyond the invariants of a snapshot (src/domain/invariants.ts):
// what only the step from one state to the next shows, and, in keys mode, that an unfiltered
// list answered its caller with every record it may see and only those.
import type { Snapshot } from '../domain/invariants.ts';
import type { SimViolation } from './tenancy.ts';
import type { Answered, SimSnapshot } from './world.ts';

/**
 * What only a step shows, not a snapshot: a terminal deal stays as it was (D-7), and a deal
 * leaves the human track only by a de-escalation (D-12).
 */
export function checkStep(before: Snapshot, after: Snapshot, kind: string): SimViolation[] {
  const out: SimViolation[] = [];
  const now = new Map(after.deals.map((d) => [d.id, d]));
  for (const deal of before.deals) {
    const later = now.get(deal.id);
    if (!later) {
      out.push({ invariant: 'stages', message: `${deal.id} disappeared (${kind})`, ids: [deal.id] });
      continue;
    }
    if ((deal.stage === 'closed_won' || deal.stage === 'closed_lost') && later.stage !== deal.stage) {
      out.push({ invariant: 'stages', message: `${deal.id} left ${deal.stage} (${kind})`, ids: [deal.id] });
    }
    if (deal.humanTrack === true && later.humanTrack !== true && kind !== 'deescalate') {
      out.push({ invariant: 'stages', message: `${deal.id} left the human track by a ${kind}`, ids: [deal.id] });
    }
  }
  return out;
}

/** D-54: an unfiltered list holds every record its caller may see, and only those (in the store's order). */
export function completeness(answered: Answered, s: Snapshot): SimViolation[] {
  const { caller } = answered;
  const me = caller.principal;
  const hasGig = (dealId: string) => s.gigs.some((g) => g.dealId === dealId && g.closerId === me);
  const sellerOf = (dealId: string) => s.deals.find((d) => d.id === dealId)?.sellerId;
  const expected =
    answered.complete === 'approvals'
      ? // D-69: a Seller the approvals of its deals; the operator all.
        (s as SimSnapshot).approvals
          .filter((a) => caller.kind === 'operator' || (caller.kind === 'seller' && a.sellerId === me))
          .map((a) => a.id)
      : answered.complete === 'proposals'
        ? // D-61: a Seller the refused proposals on its deals, a closer its own.
          (s as SimSnapshot).proposals
            .filter((p) =>
              caller.kind === 'operator'
                ? true
                : caller.kind === 'seller'
                  ? sellerOf(p.dealId) === me
                  : p.actor?.principal === me,
            )
            .map((p) => p.id)
        : answered.complete === 'deals'
          ? s.deals
              .filter(
                (d) => caller.kind === 'operator' || (caller.kind === 'seller' ? d.sellerId === me : hasGig(d.id)),
              )
              .map((d) => d.id)
          : s.gigs
              .filter(
                (g) =>
                  caller.kind === 'operator' ||
                  (caller.kind === 'seller' ? sellerOf(g.dealId) === me : g.status === 'open' || g.closerId === me),
              )
              .map((g) => g.id);
  const got = (answered.value as { id: string }[]).map((r) => r.id);
  const missing = expected.filter((id) => !got.includes(id));
  const extra = got.filter((id) => !expected.includes(id));
  if (missing.length === 0 && extra.length === 0) return [];
  return [
    {
      invariant: 'tenancy',
      message: `${answered.op} as ${me} left out ${missing.join(', ') || 'nothing'} and held ${extra.join(', ') || 'nothing more'}`,
      ids: [...missing, ...extra],
    },
  ];
}
