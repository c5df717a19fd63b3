// The words every demo tool's description shares (D-33): what the demo store is, how a refusal,
// an idempotency key, If-Match and a dry run read through an MCP door.
export const DEMO_STORE =
  'Demo store (live records that demo calls create and change, shared by every client and wiped by a demo reset where one is served; ' +
  'fictional data only; not the read-only sandbox of the ROOT door):';

/**
 * D-269: a keys-mode deployment is a production (D-3), so its tools say what is true there: the
 * records are live and real, each call acts as its key's principal and sees what D-54 lets it see.
 */
export const KEYS_STORE =
  "Live records of this deployment (real data, kept until changed; each call acts as its key's principal and sees " +
  'what it may: a Seller its own deals, their gigs and refused proposals; a closer every open gig, its own gigs and ' +
  'their deals; the operator everything; not the read-only sandbox of the ROOT door):';

/** Words of the demo's that a deployment has no use for: its reset (D-3) and the event it publishes. */
const DEMO_ONLY = [
  ', demo.reset',
  ' A reset empties the feed but seq goes on increasing, so a saved nextAfter stays valid.',
];

/** A tool's description as keys mode gives it: the deployment's words for the demo's. */
export const keysDescription = (description: string): string =>
  DEMO_ONLY.reduce((text, words) => text.replace(words, ''), description.replace(DEMO_STORE, KEYS_STORE));

/** A tool's title in keys mode: without the demo's "Demo store: " ("Sell a deal"). */
export function keysTitle(title: string): string {
  const bare = title.replace(/^Demo store: /, '');
  return bare.charAt(0).toUpperCase() + bare.slice(1);
}

export const REFUSAL_NOTE =
  'A refusal is an error result (isError) whose text is the HTTP error body {error, code, ...}; a gate refusal ' +
  'also carries gate: {error, code}. A refused call changes nothing, except that a move the gate refuses is kept ' +
  'on the record (list_proposals).';

export const KEY_NOTE =
  'idempotencyKey (optional, 1 to 255 visible ASCII characters) makes a retry safe: the same key with the same ' +
  'arguments replays the first answer and changes nothing, also when the key was first sent as the ' +
  'Idempotency-Key header of the same HTTP request; the same key with other arguments is refused 422 ' +
  'IDEMPOTENCY_KEY_REUSED. Keys are kept 24 hours.';

export const IF_MATCH_NOTE =
  'ifMatch (optional): the version of the deal you decided on (deal.version of your last read), as the integer 3, ' +
  'the string "3" or the ETag HTTP answers, "\\"3\\"" (D-268): if the deal has changed since, the call is refused ' +
  '(412 PRECONDITION_FAILED, with current {version, stage}) and changes nothing; read the deal again and decide ' +
  'again. "*" accepts any version. A weak tag (W/"3") or a list is refused (400 INVALID_BODY), as HTTP refuses it.';

export const DRY_RUN_NOTE =
  'dryRun: true answers what the call would do without doing it: {dryRun: true, accepted: true, deal, gig?, ' +
  'settlement?, events} (ids it would hand out are null), or the very refusal the real call would get; nothing ' +
  'is stored, no event is published, an idempotencyKey is ignored.';

/** What the tools that can close a deal add: look before you leap. */
export const DRY_RUN_CLOSE_NOTE =
  'Dry-run a close (advanceTo closed_won) before proposing it: the gate checks the value against the floor, and ' +
  'the dry run shows the settlement it would make.';

const CLAIMANT =
  'closerId, when named, must be the claimant (409 NOT_CLAIMANT otherwise; an unknown closer is 404 CLOSER_NOT_FOUND).';
const UNKNOWN_GIG = 'An unknown gig is 404 GIG_NOT_FOUND.';

export { CLAIMANT, UNKNOWN_GIG };

// Hints (MCP tool annotations): idempotentHint when a second identical call changes nothing more
// (it is refused, or a no-op); destructiveHint when a call may end something for good: close a
// deal, or release a gig. openWorldHint is false throughout: the tools touch this service's own
// records only.
export const READ_HINTS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const hints = (destructive: boolean, idempotent: boolean) => ({
  readOnlyHint: false,
  destructiveHint: destructive,
  idempotentHint: idempotent,
  openWorldHint: false,
});
