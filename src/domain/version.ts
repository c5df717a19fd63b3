// D-47: a move may name the version of the deal it was decided on (If-Match); if the deal has
// changed since, the move is refused and nothing changes. Checked by the service inside the unit
// of work, after the deal's lock, so two writers holding one version cannot both succeed.
import type { Deal } from './records.ts';
import { type Refusal, refuse } from './refusal.ts';

/** A version the caller read, or '*': any version, as long as the deal exists (RFC 9110). */
export type IfMatch = number | '*';

/** The refusal when the deal is not at the version the caller names; undefined when it is. */
export function versionMismatch(deal: Deal, ifMatch: IfMatch | undefined): Refusal | undefined {
  if (ifMatch === undefined || ifMatch === '*' || ifMatch === deal.version) return undefined;
  return refuse.precondition(
    'PRECONDITION_FAILED',
    `Deal ${deal.id} is at version ${deal.version} (${deal.stage}), not ${ifMatch}: it changed since it was read. Read it again and decide on what it is now.`,
    { version: deal.version, stage: deal.stage },
  );
}
