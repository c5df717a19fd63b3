// A key's policy's fields (D-68) as a form shows them, for the policy editor and the form that
// issues a key: the limits (money in USD, the least close value as a percentage of the list value,
// the moves allowed as stage checkboxes), what happens over a limit (hold or refuse), the
// approvals required (1 to 3) and how long a held proposal waits (1 to 168 hours). A field left
// empty is no limit. The form does not hold the ranges itself: the service checks them and its
// refusal is said beside the form, in the words of these labels.
import { STAGES, type Stage } from '../src/domain/stages.ts';
import type { KeyPolicy, PolicyInput } from './api.ts';
import { POLICY_LABELS } from './policy-words.ts';
import { stageLabel } from './words.ts';

/** A policy as typed: the numbers as their fields' text, the moves as ticked. */
export interface PolicyDraft {
  maxDealValueUsd: string;
  /** A percentage of the list value (90 for 0.9). */
  minCloseValuePct: string;
  closesPerDay: string;
  closedValuePerDayUsd: string;
  /** Whether the moves are limited to those ticked (unlimited: any move). */
  limitMoves: boolean;
  allowedMoves: readonly string[];
  onLimit: 'hold' | 'refuse';
  approvalsRequired: string;
  approvalTtlHours: string;
}

/** The stages a move goes to: a deal is never moved back to sourced. */
const MOVES: readonly Stage[] = STAGES.filter((stage) => stage !== 'sourced');

const text = (n: number | undefined) => (n === undefined ? '' : String(n));

/** The draft of a policy (the service's defaults where it has none). */
export function draftOf(policy?: KeyPolicy): PolicyDraft {
  return {
    maxDealValueUsd: text(policy?.maxDealValueUsd),
    minCloseValuePct:
      policy?.minCloseValuePct === undefined ? '' : String(Math.round(policy.minCloseValuePct * 1e6) / 1e4),
    closesPerDay: text(policy?.closesPerDay),
    closedValuePerDayUsd: text(policy?.closedValuePerDayUsd),
    limitMoves: policy?.allowedMoves !== undefined,
    allowedMoves: policy?.allowedMoves ?? [],
    onLimit: policy?.onLimit ?? 'hold',
    approvalsRequired: text(policy?.approvalsRequired ?? 1),
    approvalTtlHours: text(policy?.approvalTtlHours ?? 24),
  };
}

/** A field's number, or undefined when it is empty (no limit). Text no number reads as is sent as null: refused. */
const numberOf = (typed: string) => (typed.trim() === '' ? undefined : Number(typed));

/** The policy a draft sends (`PUT /keys/{id}/policy`, `POST /keys`): only the fields filled in. */
export function policyOf(draft: PolicyDraft): PolicyInput {
  const policy: PolicyInput = { onLimit: draft.onLimit };
  const max = numberOf(draft.maxDealValueUsd);
  if (max !== undefined) policy.maxDealValueUsd = max;
  const pct = numberOf(draft.minCloseValuePct);
  // 90 → 0.9, without the float's tail (90 / 100 is exact, 0.1 * 3 is not).
  if (pct !== undefined) policy.minCloseValuePct = Number((pct / 100).toPrecision(12));
  if (draft.limitMoves)
    policy.allowedMoves = STAGES.filter((stage) => draft.allowedMoves.includes(stage)) as KeyPolicy['allowedMoves'];
  const closes = numberOf(draft.closesPerDay);
  if (closes !== undefined) policy.closesPerDay = closes;
  const value = numberOf(draft.closedValuePerDayUsd);
  if (value !== undefined) policy.closedValuePerDayUsd = value;
  const approvals = numberOf(draft.approvalsRequired);
  if (approvals !== undefined) policy.approvalsRequired = approvals;
  const hours = numberOf(draft.approvalTtlHours);
  if (hours !== undefined) policy.approvalTtlHours = hours;
  return policy;
}

type NumberField = 'maxDealValueUsd' | 'minCloseValuePct' | 'closesPerDay' | 'closedValuePerDayUsd';
const LIMIT_FIELDS: readonly { field: NumberField; step: string }[] = [
  { field: 'maxDealValueUsd', step: '0.01' },
  { field: 'minCloseValuePct', step: '0.1' },
  { field: 'closesPerDay', step: '1' },
  { field: 'closedValuePerDayUsd', step: '0.01' },
];

export function PolicyFields({ draft, set }: { draft: PolicyDraft; set: (draft: PolicyDraft) => void }) {
  const change = (part: Partial<PolicyDraft>) => set({ ...draft, ...part });
  const tick = (stage: string, on: boolean) =>
    change({ allowedMoves: on ? [...draft.allowedMoves, stage] : draft.allowedMoves.filter((s) => s !== stage) });
  return (
    <div class="policy-fields">
      <fieldset>
        <legend>Limits (empty: no limit)</legend>
        {LIMIT_FIELDS.map(({ field, step }) => (
          <label key={field}>
            {POLICY_LABELS[field]}{' '}
            <input
              type="number"
              min="0"
              step={step}
              placeholder="no limit"
              value={draft[field]}
              onInput={(e) => change({ [field]: e.currentTarget.value })}
            />
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>{POLICY_LABELS.allowedMoves}</legend>
        <label class="scope">
          <input
            type="checkbox"
            checked={draft.limitMoves}
            onChange={(e) => change({ limitMoves: e.currentTarget.checked })}
          />{' '}
          Only the stages ticked
        </label>
        {MOVES.map((stage) => (
          <label key={stage} class="scope">
            <input
              type="checkbox"
              disabled={!draft.limitMoves}
              checked={draft.limitMoves && draft.allowedMoves.includes(stage)}
              onChange={(e) => tick(stage, e.currentTarget.checked)}
            />{' '}
            {stageLabel(stage)}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>When a move goes over a limit</legend>
        <label>
          {POLICY_LABELS.onLimit}{' '}
          <select
            value={draft.onLimit}
            onChange={(e) => change({ onLimit: e.currentTarget.value as PolicyDraft['onLimit'] })}
          >
            <option value="hold">hold it for approval</option>
            <option value="refuse">refuse it</option>
          </select>
        </label>
        <label>
          {POLICY_LABELS.approvalsRequired}{' '}
          <input
            type="number"
            min="1"
            max="3"
            step="1"
            value={draft.approvalsRequired}
            onInput={(e) => change({ approvalsRequired: e.currentTarget.value })}
          />
        </label>
        <label>
          {POLICY_LABELS.approvalTtlHours}{' '}
          <input
            type="number"
            min="1"
            max="168"
            step="1"
            value={draft.approvalTtlHours}
            onInput={(e) => change({ approvalTtlHours: e.currentTarget.value })}
          />
        </label>
      </fieldset>
    </div>
  );
}
