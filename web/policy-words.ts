// A key's policy (D-68) and the limits a move met (D-69) in words: "closes per day: 6 of 5",
// "close value 76% of list, policy asks at least 90%", a policy as the lines people read, a
// key's usage of the day, and a refusal to set a policy looser than the caller's own. The
// policy's field names (closesPerDay, minCloseValuePct) never reach a person.
import type { ApiError, KeyPolicy, KeyUsage, PolicyLimit } from './api.ts';
import { humanize, money, percent, plural, stageLabel } from './words.ts';

/** The policy's fields as the editor labels them. */
export const POLICY_LABELS: Record<keyof KeyPolicy, string> = {
  maxDealValueUsd: 'Largest deal (USD)',
  minCloseValuePct: 'Least close value (% of list)',
  allowedMoves: 'Moves allowed',
  closesPerDay: 'Closes per day',
  closedValuePerDayUsd: 'Closed value per day (USD)',
  onLimit: 'Over a limit',
  approvalsRequired: 'Approvals required',
  approvalTtlHours: 'Waits for (hours)',
};

/** Stages in a sentence: `Qualified, Meeting and Proposal`. */
export function stagesWords(stages: readonly string[]): string {
  const labels = stages.map(stageLabel);
  return labels.length < 2 ? labels.join('') : `${labels.slice(0, -1).join(', ')} and ${labels.at(-1)}`;
}

const figure = (n: number | string) => (typeof n === 'number' ? n : Number(n));

/** One limit a move went over (or met), in words. */
export function limitWords(check: PolicyLimit): string {
  const { allowed, value } = check;
  switch (check.limit) {
    case 'closesPerDay':
      return `closes per day: ${figure(value)} of ${figure(allowed as number)}`;
    case 'closedValuePerDayUsd':
      return `closed value per day: ${money(figure(value))} of ${money(figure(allowed as number))}`;
    case 'minCloseValuePct':
      return `close value ${percent(figure(value))} of list, policy asks at least ${percent(figure(allowed as number))}`;
    case 'maxDealValueUsd':
      return `list value ${money(figure(value))}, policy allows at most ${money(figure(allowed as number))}`;
    case 'allowedMoves': {
      const stages = Array.isArray(allowed) ? allowed : [];
      const to = stageLabel(String(value));
      return stages.length === 0
        ? `a move to ${to}, policy allows no moves`
        : `a move to ${to}, policy allows only ${stagesWords(stages)}`;
    }
    default:
      return `${check.limit}: ${String(value)} where ${String(allowed)} is allowed`;
  }
}

/** The limits a proposal went over, in a sentence. */
export const limitsWords = (limits: readonly PolicyLimit[]) => limits.map(limitWords).join('; ');

/** A policy as the lines people read: its limits first, then what happens over one. */
export function policyLines(policy: KeyPolicy): string[] {
  const lines: string[] = [];
  if (policy.maxDealValueUsd !== undefined)
    lines.push(`No deal with a list value above ${money(policy.maxDealValueUsd)}`);
  if (policy.minCloseValuePct !== undefined)
    lines.push(`Closes won at ${percent(policy.minCloseValuePct)} of the list value or more`);
  // A limit of nothing: every such move is over it, so it is held (or refused) every time.
  const none = policy.onLimit === 'refuse' ? '' : ' without approval';
  if (policy.allowedMoves !== undefined)
    lines.push(
      policy.allowedMoves.length === 0 ? `No move${none}` : `Moves to ${stagesWords(policy.allowedMoves)} only`,
    );
  if (policy.closesPerDay !== undefined)
    lines.push(
      policy.closesPerDay === 0 ? `No close won${none}` : `At most ${plural(policy.closesPerDay, 'close')} won a day`,
    );
  if (policy.closedValuePerDayUsd !== undefined)
    lines.push(`At most ${money(policy.closedValuePerDayUsd)} closed won a day`);
  if (lines.length === 0) lines.push('No limit');
  lines.push(
    policy.onLimit === 'refuse'
      ? 'Over a limit: refused'
      : `Over a limit: held for ${plural(policy.approvalsRequired, 'approval')}, waiting ${plural(policy.approvalTtlHours, 'hour')}`,
  );
  return lines;
}

/** A key's closes of the day, against its policy's daily limits where it has them. */
export function usageWords(usage: KeyUsage, policy?: KeyPolicy): string {
  const limit = policy?.closesPerDay;
  const closes =
    limit === undefined
      ? `${plural(usage.closes, 'close')} won`
      : limit === 0
        ? `${plural(usage.closes, 'close')} won (none without approval)`
        : `${usage.closes} of ${plural(limit, 'close')} won`;
  const value =
    policy?.closedValuePerDayUsd !== undefined
      ? `${money(usage.closedValueUsd)} of ${money(policy.closedValuePerDayUsd)}`
      : money(usage.closedValueUsd);
  return `Today (${usage.day}, UTC): ${closes}, ${value} closed`;
}

/** The policy's field names in a service's sentence, as the editor labels them. */
export function fieldsAsLabels(text: string): string {
  return text.replace(
    /\b(maxDealValueUsd|minCloseValuePct|allowedMoves|closesPerDay|closedValuePerDayUsd|onLimit|approvalsRequired|approvalTtlHours)\b/g,
    (field) => `“${POLICY_LABELS[field as keyof KeyPolicy].replace(/ \(.*\)$/, '')}”`,
  );
}

/**
 * A refusal of a policy (D-68) in words, or undefined for another: POLICY_WIDENING names what is
 * looser than the caller's own; POLICY_NOT_OF_SELLER says whose keys carry one.
 */
export function policyRefusalWords(error: ApiError): string | undefined {
  if (error.code === 'POLICY_WIDENING') {
    const what = /:\s*(.*?)\.?$/.exec(error.error)?.[1] ?? '';
    const minimum = what.replace(
      /minCloseValuePct may be no lower than ([\d.]+)/,
      (_, n: string) => `minCloseValuePct may be no lower than ${percent(Number(n))}`,
    );
    const said = humanize(fieldsAsLabels(minimum)).replace(/\(the caller's own\)/g, '(your own)');
    return `You may not set a policy looser than your own key’s: ${said}.`;
  }
  if (error.code === 'POLICY_NOT_OF_SELLER')
    return 'Only a Seller’s key carries a policy: its keys are the ones that propose moves.';
  return undefined;
}
