// Examples of what a caller sends, for the contract (D-267): each is a request the service takes,
// and test/e2e/contract-requests.test.ts sends it and holds it to its schema. Fictional, and of a
// piece with examples.ts: the create that made its deal, the moves and the claim of its gig by its
// closer, the closer's enrolment.
import { CLOSER_EXAMPLE, DEAL_EXAMPLE, GIG_EXAMPLE } from './examples.ts';

/** The create (or sell) that made DEAL_EXAMPLE: its closer role staffed with a human. */
export const CREATE_DEAL_EXAMPLE = {
  account: DEAL_EXAMPLE.account,
  listValueUsd: DEAL_EXAMPLE.listValueUsd,
  mandate: { staffing: { closer: 'human' } },
};

/** A correction of DEAL_EXAMPLE (D-67): the account's legal name, a higher list value. */
export const EDIT_DEAL_EXAMPLE = { account: { name: `${DEAL_EXAMPLE.account.name} GmbH` }, listValueUsd: 125_000 };

export const PROPOSAL_EXAMPLE = { advanceTo: 'qualified', note: 'Budget confirmed on the discovery call.' };

export const SIGNALS_EXAMPLE = { signals: ['procurement_involved'] };

export const ENROL_EXAMPLE = { name: CLOSER_EXAMPLE.name, industries: CLOSER_EXAMPLE.industries };

export const MATCH_EXAMPLE = { industry: 'saas', valueUsd: DEAL_EXAMPLE.listValueUsd, role: 'closer', limit: 3 };

export const CLAIM_EXAMPLE = { closerId: CLOSER_EXAMPLE.id };

export const GIG_ADVANCE_EXAMPLE = {
  advanceTo: 'closed_won',
  valueUsd: GIG_EXAMPLE.finalValueUsd,
  note: 'Signed at $110,000.00.',
  closerId: CLOSER_EXAMPLE.id,
};

export const REVIVE_EXAMPLE = { note: 'Back in touch after the holidays.', closerId: CLOSER_EXAMPLE.id };

export const RELEASE_EXAMPLE = { closerId: CLOSER_EXAMPLE.id };

/** A name that does not resolve is taken (each attempt resolves it again): example.com's own. */
export const WEBHOOK_EXAMPLE = { url: 'https://hooks.example.com/pipeline', types: ['deal.closed', 'gig.posted'] };

export const CLOCK_EXAMPLE = { advanceHours: 24 };

export const SELLER_EXAMPLE = { name: DEAL_EXAMPLE.account.name };

export const KEY_EXAMPLE = { name: 'pricing agent', scopes: ['deals:read', 'deals:propose'] };

export const ROLL_EXAMPLE = { graceSeconds: 3600 };

/** A Seller admin invites a rep (D-62). */
export const INVITE_EXAMPLE = { email: 'dana@acme-robotics.example', name: 'Dana Fictional', role: 'rep' };
