// Refused proposals (D-61) → JSON: the record as the lists, the event's data and MCP show it.
import type { RefusedProposal } from '../domain/proposals.ts';
import { actorView, iso } from './records.ts';

export function proposalView(record: RefusedProposal) {
  const view: Record<string, unknown> = { id: record.id, dealId: record.dealId };
  if (record.gigId !== undefined) view.gigId = record.gigId;
  view.by = record.by;
  if (record.actor !== undefined) view.actor = actorView(record.actor);
  view.proposal = record.proposal;
  view.stage = record.stage;
  view.code = record.code;
  view.reason = record.reason;
  view.at = iso(record.at);
  return view;
}
