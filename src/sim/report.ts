// What a simulation is asked (its options) and what it answers (its report): the seed and mode,
// the steps per command kind and their refusals, the faults injected, what the episodes left,
// the refused proposals the gate recorded (D-61), and in keys mode what the keys and the
// tenants' walls were put to, and what keys' policies held and people decided (D-68..D-70).
import type { SimViolation } from './tenancy.ts';

export interface SimulationReport {
  seed: number;
  mode: 'demo' | 'keys';
  steps: number;
  /** How many fresh services the steps ran on. */
  episodes: number;
  /** Steps per command kind, and how many of them were refused. */
  kinds: Record<string, { run: number; refused: number }>;
  faults: number;
  /**
   * What the episodes left, added up: records, won deals and ledger lines (that money really
   * moved); and of the books (D-79 to D-81), the transfers, refunds, releases, reversals from a
   * closer's available account (clawed back after a release) and payouts.
   */
  final?: {
    deals: number;
    won: number;
    gigs: number;
    fulfilled: number;
    closers: number;
    payouts: number;
    transfers: number;
    refunds: number;
    releases: number;
    clawbacks: number;
    paid: number;
  };
  /** The first failure, with the steps that led to it (the seed replays them). */
  failure?: { step: number; command: string; problem: string; violations?: SimViolation[]; trail: string[] };
  /** D-61: the refusals of proposals (deal advances, gig advances and revivals) and their records. */
  proposals: ProposalTally;
  /** Keys mode: what the keys and the tenants' walls were put to. */
  keys?: KeysTally;
  /** Keys mode: keys' policies, the proposals they held and how the approvals ended (D-68..D-70). */
  approvals?: ApprovalTally;
}

export interface ApprovalTally {
  /** Policies set on keys or made with them, and those refused as looser than the caller's own (403). */
  policiesSet: number;
  widening: number;
  /** Proposals held (an approval each), and refused by a key's policy (422 POLICY_LIMIT). */
  held: number;
  policyRefused: number;
  /** Approvals ended, by how. */
  ended: { approved: number; denied: number; expired: number; superseded: number; refused: number };
  /** Votes short of the last, and decisions refused, by code (SELF_APPROVAL, ALREADY_APPROVED, ...). */
  votes: number;
  refusedDecisions: Record<string, number>;
  /** Racing approvals of one approval, and how many racers committed (at most one a race). */
  races: number;
  raceCommits: number;
}

export interface ProposalTally {
  /** Refusals of the gate recorded, each checked against its record and its one event. */
  refused: number;
  /** The recorded refusals per command kind (advance, gig-advance, revive) and code. */
  byKind: Record<string, Record<string, number>>;
  /** The recorded refusals per code. */
  byCode: Record<string, number>;
  /**
   * Refusals of a proposal command that rightly recorded nothing, by why: `dry` (a dry run the
   * gate refused), else the code (an unknown id, a stale If-Match, a bad body, the door's).
   */
  unrecorded: Record<string, number>;
  /** Proposals sent again under their idempotency key, each answered as before, recording nothing more. */
  replays: number;
  /** Summaries and lists of refused proposals held to the records and the deals' activity. */
  checked: number;
}

export interface KeysTally {
  /** Commands refused at the door: the key (401) or its scopes (403). */
  refusedKeys: number;
  refusedScopes: number;
  /** Commands and reads on another tenant's record, each answered as an unknown id was. */
  crossTenant: number;
  /** Tokens the key ring was asked about in an `auth` step, and how many it rightly refused. */
  tokens: number;
  tokensRefused: number;
  /** Keys revoked, and made, during the steps. */
  revoked: number;
  issued: number;
  /** D-75: keys rolled, and rolls refused because the caller's key lacked a scope of the key rolled. */
  rolled: number;
  rollsRefused: number;
  /**
   * D-76: event streams opened, the events delivered to them, and the streams ended because
   * their credential did (revoked, expired, rolled past its grace).
   */
  streamsOpened: number;
  streamEvents: number;
  streamsEnded: number;
  /** Successful answers held to their caller's tenancy. */
  answersChecked: number;
  /** D-62: commands and reads a person made through the console's session, past the door. */
  asPeople: number;
}

export interface SimulationOptions {
  seed: number;
  /** Stop after this many steps, or when the time is up, whichever comes first. */
  steps?: number;
  seconds?: number;
  /** Run on past the time until this many steps (a loaded machine's short run sees too little). */
  minSteps?: number;
  /** Chance that a step's unit of work is made to fail (default 0.05). */
  faultRate?: number;
  /** Steps before the run starts again on a fresh service (default 1,000). */
  episodeSteps?: number;
  /** Keys mode (D-50): principals, keys and tenants; every command as a principal's caller. */
  keys?: boolean;
  /**
   * Keys mode: whether a closer's key is also sent to release an open gig it never claimed
   * (D-53: refused; a closer releases only a gig it claimed). On unless false.
   */
  closerReleasesOpenGigs?: boolean;
  /**
   * Refunds and payout runs among the commands (D-80, D-81). On unless false; off, a seed draws
   * what it drew before they were (the books are still read and checked after every step).
   */
  ledger?: boolean;
}

/** A report before its first step. */
export function newReport(seed: number, keysMode: boolean): SimulationReport {
  const report: SimulationReport = {
    seed,
    mode: keysMode ? 'keys' : 'demo',
    steps: 0,
    episodes: 1,
    kinds: {},
    faults: 0,
    proposals: { refused: 0, byKind: {}, byCode: {}, unrecorded: {}, replays: 0, checked: 0 },
  };
  if (keysMode) {
    report.keys = {
      refusedKeys: 0,
      refusedScopes: 0,
      crossTenant: 0,
      tokens: 0,
      tokensRefused: 0,
      revoked: 0,
      issued: 0,
      rolled: 0,
      rollsRefused: 0,
      streamsOpened: 0,
      streamEvents: 0,
      streamsEnded: 0,
      answersChecked: 0,
      asPeople: 0,
    };
    report.approvals = {
      policiesSet: 0,
      widening: 0,
      held: 0,
      policyRefused: 0,
      ended: { approved: 0, denied: 0, expired: 0, superseded: 0, refused: 0 },
      votes: 0,
      refusedDecisions: {},
      races: 0,
      raceCommits: 0,
    };
  }
  return report;
}

/** Keys mode's line on policies and approvals (D-68..D-70). */
export function describeApprovals({ approvals: a }: SimulationReport): string {
  if (!a) return 'no approvals (the demo has no keys)';
  const ended = Object.entries(a.ended)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  const refused = Object.entries(a.refusedDecisions)
    .map(([code, n]) => `${code} ${n}`)
    .join(', ');
  return (
    `policies: ${a.policiesSet} set, ${a.widening} refused as looser; ${a.held} proposals held and ${a.policyRefused} ` +
    `refused by a policy; approvals ended: ${ended}; ${a.votes} votes short of the last; decisions refused: ` +
    `${refused || 'none'}; ${a.races} races, ${a.raceCommits} commits among them`
  );
}

/** D-61's line of a report, as `npm run sim` may print it. */
export function describeProposals({ proposals: p }: SimulationReport): string {
  const kinds = Object.entries(p.byKind)
    .map(
      ([kind, codes]) =>
        `${kind} ${Object.entries(codes)
          .map(([code, n]) => `${code} ${n}`)
          .join(', ')}`,
    )
    .join('; ');
  const unrecorded = Object.entries(p.unrecorded)
    .map(([why, n]) => `${why} ${n}`)
    .join(', ');
  return (
    `refused proposals: ${p.refused} recorded (${kinds || 'none'}); recorded nothing: ${unrecorded || 'none'}; ` +
    `${p.replays} replays under a key, ${p.checked} summaries and lists checked`
  );
}
