// Examples of the main records as the API answers them, for the contract (a test validates each
// against its schema). Fictional, and consistent with each other: one deal escalated to a human
// closer, its gig claimed by closer_0001 and closed won at $110,000.00.
const AT = '2026-01-05T09:00:00.000Z';
const LATER = '2026-01-06T14:30:00.000Z';

export const MANDATE_EXAMPLE = {
  staffing: { setter: 'agent', closer: 'human', nurturer: 'human' },
  commissionPct: 0.1,
  maxCommissionPct: 0.12,
  floorPct: 0.8,
  fees: { setterUsd: 250, nurturerUsd: 150 },
  stallTimeoutDays: 14,
};

const ACCOUNT = { name: 'Northwind Fictional', industry: 'saas', actor: 'B2B' };

export const DEAL_EXAMPLE = {
  id: 'deal_0001',
  // created, two moves, the gig's claim and its close
  version: 5,
  account: ACCOUNT,
  listValueUsd: 120000,
  stage: 'closed_won',
  signals: [],
  mandate: MANDATE_EXAMPLE,
  activity: [
    { at: AT, by: 'service', stage: 'sourced', note: 'Deal created at sourced; mandate resolved.' },
    { at: AT, by: 'agent', stage: 'qualified', note: 'Agent advanced sourced to qualified.' },
    { at: AT, by: 'agent', stage: 'meeting', note: 'Agent advanced qualified to meeting.' },
    { at: LATER, by: 'human', stage: 'closed_won', note: 'Closed won at $110,000.00.' },
  ],
  humanTrack: true,
  finalValueUsd: 110000,
  closedBy: 'human',
};

export const GIG_EXAMPLE = {
  id: 'gig_0001',
  status: 'fulfilled',
  dealId: 'deal_0001',
  role: 'closer',
  brief: {
    account: ACCOUNT,
    listValueUsd: 120000,
    stage: 'meeting',
    signals: [],
    floorUsd: 96000,
    activity: DEAL_EXAMPLE.activity.slice(0, 3),
  },
  pricing: { kind: 'commission', pct: 0.1 },
  closerId: 'closer_0001',
  postedAt: AT,
  claimedAt: AT,
  outcome: 'closed_won',
  finalValueUsd: 110000,
};

export const CLOSER_EXAMPLE = {
  id: 'closer_0001',
  name: 'Ada Brightwater (fictional)',
  industries: ['saas', 'fintech'],
  record: { gigs: 1, wins: 1, grossClosedUsd: 110000 },
  payouts: [{ at: LATER, gigId: 'gig_0001', dealId: 'deal_0001', kind: 'commission', amountUsd: 11000 }],
};

export const SETTLEMENT_EXAMPLE = {
  dealId: 'deal_0001',
  finalValueUsd: 110000,
  closedBy: 'human',
  closerCommissionUsd: 11000,
  platformFeeUsd: 5500,
  feesSettledUsd: 0,
  netToSellerUsd: 93500,
  fees: [],
};

const { humanTrack: _humanTrack, ...DEAL_ON_THE_AGENT_TRACK } = DEAL_EXAMPLE;

/** D-48: a dry run of the agent's close of a deal at negotiation, at $110,000.00 (nothing of it was done). */
export const DRY_RUN_EXAMPLE = {
  dryRun: true,
  accepted: true,
  deal: {
    ...DEAL_ON_THE_AGENT_TRACK,
    version: 6,
    activity: [
      { at: AT, by: 'service', stage: 'sourced', note: 'Deal created at sourced; mandate resolved.' },
      { at: LATER, by: 'agent', stage: 'closed_won', note: 'Closed won at $110,000.00 by the agent' },
    ],
    closedBy: 'agent',
  },
  settlement: {
    dealId: 'deal_0001',
    finalValueUsd: 110000,
    closedBy: 'agent',
    closerCommissionUsd: 0,
    platformFeeUsd: 5500,
    feesSettledUsd: 0,
    netToSellerUsd: 104500,
    fees: [],
  },
  events: [
    { type: 'deal.stage_changed', data: { dealId: 'deal_0001', from: 'negotiation', to: 'closed_won', by: 'agent' } },
    {
      type: 'deal.closed',
      data: { dealId: 'deal_0001', outcome: 'closed_won', closedBy: 'agent', finalValueUsd: 110000 },
    },
  ],
};
