// D-270: an agent's move on a deal that needs a human (sell, advance_deal) answers the escalation
// {escalated: true, role, gig, suggestedClosers, deal}. The call did what it should (the gate
// escalated, nothing was refused), so the result is no error and its structured content is the
// HTTP answer as it is; but a model reading a result without isError takes the move as made. So
// the result's first text block says in words that the deal did not move, why, and which gig a
// human works it through; the JSON text block follows, as on every answer.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** What the descriptions of sell and advance_deal add. */
export const ESCALATION_NOTE =
  'An escalation is no error result (the gate escalated; nothing was refused) and no move either: its first ' +
  'text block says in words that the deal did not move, why, and the gig a human works it through; the JSON ' +
  'follows in the next.';

interface Escalation {
  escalated: true;
  role: 'setter' | 'closer' | 'nurturer';
  gig: { id: string; status: string; closerId?: string };
  suggestedClosers: unknown[];
  deal: { id: string; stage: string; version: number };
}

const isEscalation = (body: unknown): body is Escalation =>
  typeof body === 'object' && body !== null && (body as { escalated?: unknown }).escalated === true;

/** Why the deal is a human's: the stall, or its staffing (the mandate, or the human track it is on). */
function why({ role }: Escalation): string {
  if (role === 'nurturer')
    return 'It needs a human nurturer: it is stalled (gone_dark), and a stalled deal always does.';
  return (
    `It needs a human ${role}: its mandate staffs the ${role} with a human, or it is already on the human track, ` +
    'which only the Seller’s de-escalation leaves.'
  );
}

/** Who works the gig now, and with which tools. */
function work({ role, gig, suggestedClosers }: Escalation): string {
  const move = role === 'nurturer' ? 'revive_gig' : 'advance_gig';
  if (gig.status === 'claimed' && gig.closerId !== undefined) {
    return `A human works it through gig ${gig.id}, claimed by ${gig.closerId}, who moves it (${move}).`;
  }
  const ranked = suggestedClosers.length > 0 ? `; suggestedClosers ranks ${suggestedClosers.length} who fit` : '';
  return `A human works it through gig ${gig.id} (${gig.status}): claimed with claim_gig${ranked}, moved with ${move}.`;
}

/** The words of an escalation: `sell` made the deal and stopped; `advance_deal` moved nothing. */
export function escalationNote(tool: string, escalation: Escalation): string {
  const { deal } = escalation;
  const what =
    tool === 'sell'
      ? `Not closed: deal ${deal.id} was created and waits at ${deal.stage} (version ${deal.version}); the agent moves it no further.`
      : `Not moved: deal ${deal.id} stays at ${deal.stage} (version ${deal.version}); no proposal moves a deal that needs a human.`;
  return `${what} ${why(escalation)} ${work(escalation)}`;
}

/** The result with the escalation's words first, when its answer is an escalation; else as it is. */
export function noteEscalation(tool: string, result: CallToolResult): CallToolResult {
  if (result.isError) return result;
  const held = heldNote(result.structuredContent);
  if (held !== undefined) return { ...result, content: [{ type: 'text' as const, text: held }, ...result.content] };
  if (!isEscalation(result.structuredContent)) return result;
  const note = { type: 'text' as const, text: escalationNote(tool, result.structuredContent) };
  return { ...result, content: [note, ...result.content] };
}

interface HeldAnswer {
  status: 'held';
  approval: {
    id: string;
    dealId: string;
    limits: { limit: string; allowed: unknown; value: unknown }[];
    expiresAt: string;
  };
}

/**
 * D-69: a held proposal in words a model acts on: nothing moved, which limits it went over, the
 * approval it waits on, and that proposing again does not help (agent-framework#8503: a model
 * not told why asks again).
 */
export function heldNote(content: unknown): string | undefined {
  if (typeof content !== 'object' || content === null || (content as { status?: unknown }).status !== 'held')
    return undefined;
  const { approval } = content as HeldAnswer;
  const limits = approval.limits
    .map((l) => `${l.limit} (allowed ${JSON.stringify(l.allowed)}, this move ${JSON.stringify(l.value)})`)
    .join('; ');
  return (
    `Held, not moved: the proposal on deal ${approval.dealId} went over this key's policy: ${limits}. ` +
    `It waits for a person's approval as ${approval.id} until ${approval.expiresAt}. Do not retry or propose ` +
    `it again (a second one is refused APPROVAL_PENDING): follow it with get_approval ${approval.id}; ` +
    'when approved, the move is committed for you.'
  );
}
