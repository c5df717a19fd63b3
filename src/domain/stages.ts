// The seven stages and the one-step order between them (D-7), and which role owns a deal (D-8).

export const STAGES = [
  'sourced',
  'qualified',
  'meeting',
  'proposal',
  'negotiation',
  'closed_won',
  'closed_lost',
] as const;
export type Stage = (typeof STAGES)[number];

export const ROLES = ['setter', 'closer', 'nurturer'] as const;
export type Role = (typeof ROLES)[number];

export const GONE_DARK = 'gone_dark';

const NEXT: Partial<Record<Stage, Stage>> = {
  sourced: 'qualified',
  qualified: 'meeting',
  meeting: 'proposal',
  proposal: 'negotiation',
  negotiation: 'closed_won',
};

export function isStage(value: string): value is Stage {
  return (STAGES as readonly string[]).includes(value);
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function isTerminal(stage: Stage): boolean {
  return stage === 'closed_won' || stage === 'closed_lost';
}

/** The stage one step ahead, or undefined for a terminal stage. */
export function nextStage(stage: Stage): Stage | undefined {
  return NEXT[stage];
}

/** D-7: one step at a time, or closed_lost from any non-terminal stage. */
export function isLegalMove(from: Stage, to: Stage): boolean {
  if (isTerminal(from)) return false;
  return to === 'closed_lost' || NEXT[from] === to;
}

/** D-8: the role of the stage, ignoring a stall. */
export function stageRole(stage: Stage): Role {
  return stage === 'sourced' || stage === 'qualified' ? 'setter' : 'closer';
}

/** D-8: nurturer while the deal carries gone_dark, else the role of its stage. */
export function owningRole(deal: { stage: Stage; signals: readonly string[] }): Role {
  return deal.signals.includes(GONE_DARK) ? 'nurturer' : stageRole(deal.stage);
}
