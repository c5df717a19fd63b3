// What a dry run answers (D-48): `{dryRun: true, accepted: true, deal, gig?, settlement?, events}`,
// the records as the real call would leave them, with every id that call would hand out null.
import { isProvisionalId } from '../domain/ids.ts';
import type { Deal, Gig } from '../domain/records.ts';
import type { AdvanceOutcome, DryRunOutcome, GigOutcome } from '../service/outcomes.ts';
import { eventData } from './events.ts';
import { limitView } from './limits.ts';
import { dealView, gigView, settlementView } from './records.ts';

/** The writes that take a dry run, by what they answer: a deal, a move of a deal, a move of a gig. */
export type DryRunnable = Deal | AdvanceOutcome | GigOutcome;

function recordsOf(value: DryRunnable): { deal: Deal; gig?: Gig } {
  if ('kind' in value) {
    return value.kind === 'escalation'
      ? { deal: value.escalation.deal, gig: value.escalation.gig }
      : { deal: value.deal };
  }
  if ('gig' in value) return { deal: value.deal, gig: value.gig };
  return { deal: value };
}

/**
 * The fields that hold ids: there (and only there: an account may be named anything) a
 * provisional id is null. No text names an id (D-272), an activity entry's gig among them.
 */
const ID_FIELDS = new Set(['id', 'dealId', 'gigId', 'closerId', 'revivedFrom']);

/** Ids not yet numbered: null where a field holds one. */
function withProvisionalIdsNull(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withProvisionalIdsNull);
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    copy[key] =
      ID_FIELDS.has(key) && typeof value === 'string' && isProvisionalId(value) ? null : withProvisionalIdsNull(value);
  }
  return copy;
}

/** D-71: the policy's verdict a dry run through a key with one carries. */
function policyOf(value: DryRunnable) {
  if (!('kind' in value) || value.kind === 'held' || value.policy === undefined) return {};
  const { outcome, limits } = value.policy;
  return { policy: { outcome, limits: limits.map((check) => limitView(check)) } };
}

export function dryRunView(outcome: DryRunOutcome<DryRunnable>) {
  const { deal, gig } = recordsOf(outcome.value);
  return withProvisionalIdsNull({
    dryRun: true,
    accepted: true,
    deal: dealView(deal),
    ...(gig ? { gig: gigView(gig) } : {}),
    ...(outcome.settlement ? { settlement: settlementView(outcome.settlement) } : {}),
    events: outcome.events.map((event) => ({ type: event.type, data: eventData(event) })),
    ...policyOf(outcome.value),
  });
}
