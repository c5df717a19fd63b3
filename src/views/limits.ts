// A key's policy and the limits a move met (D-68, D-69) as every door answers them: money
// in USD with two decimals (cents inside), the limits' names as the policy's fields.
import { centsToUsd } from '../domain/money.ts';
import { type KeyPolicy, type KeyUsage, type LimitCheck, MONEY_LIMITS } from '../domain/policy.ts';

export interface LimitView {
  limit: string;
  allowed: number | string[];
  value: number | string;
  used?: number;
}

/** `within` stays inside: a refusal's and an approval's limits are those passed, a dry run says its outcome. */
export function limitView(check: LimitCheck, withUsed = true): LimitView {
  const money = MONEY_LIMITS.includes(check.limit);
  const figure = (n: number) => (money ? centsToUsd(n) : n);
  const view: LimitView = {
    limit: check.limit,
    allowed: typeof check.allowed === 'number' ? figure(check.allowed) : [...check.allowed],
    value: typeof check.value === 'number' ? figure(check.value) : check.value,
  };
  if (withUsed && check.used !== undefined) view.used = figure(check.used);
  return view;
}

export interface PolicyView {
  maxDealValueUsd?: number;
  minCloseValuePct?: number;
  allowedMoves?: string[];
  closesPerDay?: number;
  closedValuePerDayUsd?: number;
  onLimit: 'hold' | 'refuse';
  approvalsRequired: number;
  approvalTtlHours: number;
}

/** A policy with its defaults stated (what binds the key is what is shown). */
export function policyView(policy: KeyPolicy): PolicyView {
  const view: PolicyView = {
    onLimit: policy.onLimit ?? 'hold',
    approvalsRequired: policy.approvalsRequired ?? 1,
    approvalTtlHours: policy.approvalTtlHours ?? 24,
  };
  if (policy.maxDealValueCents !== undefined) view.maxDealValueUsd = centsToUsd(policy.maxDealValueCents);
  if (policy.minCloseValuePct !== undefined) view.minCloseValuePct = policy.minCloseValuePct;
  if (policy.allowedMoves !== undefined) view.allowedMoves = [...policy.allowedMoves];
  if (policy.closesPerDay !== undefined) view.closesPerDay = policy.closesPerDay;
  if (policy.closedValuePerDayCents !== undefined)
    view.closedValuePerDayUsd = centsToUsd(policy.closedValuePerDayCents);
  return view;
}

export const usageView = (usage: KeyUsage) => ({
  day: usage.day,
  closes: usage.closes,
  closedValueUsd: centsToUsd(usage.closedValueCents),
});
