// Refusals and failures as sentences (D-228): a violation said for the field the form labels
// ("Commission 50% is above the 12% maximum", "Account name cannot be empty"), never the
// validator's own text ("must NOT have fewer than 1 characters", "must be >= 0.005"), which
// stays in the element's title; a refusal by its code; a service that cannot be reached.
import type { ApiError, PolicyLimit } from './api.ts';
import { limitsWords, POLICY_LABELS, policyRefusalWords } from './policy-words.ts';
import { humanize, money, percent, plural } from './words.ts';

type Field = { label: string; percent?: true; usd?: true; days?: true; hours?: true };

const policyLabel = (field: keyof typeof POLICY_LABELS) => POLICY_LABELS[field].replace(/ \(.*\)$/, '');

/** The fields a violation may name, as the form labels them; `percent` ones are fractions. */
const FIELDS: Record<string, Field> = {
  'account.name': { label: 'Account name' },
  'account.industry': { label: 'Industry' },
  'account.actor': { label: 'Actor' },
  listValueUsd: { label: 'List value', usd: true },
  // A refund's (D-81), as the deal page's refund form labels it.
  amountUsd: { label: 'Amount refunded', usd: true },
  'mandate.commissionPct': { label: 'Commission', percent: true },
  'mandate.maxCommissionPct': { label: 'Commission cap', percent: true },
  'mandate.floorPct': { label: 'Floor', percent: true },
  'mandate.fees.setterUsd': { label: 'Setter fee', usd: true },
  'mandate.fees.nurturerUsd': { label: 'Nurturer fee', usd: true },
  'mandate.stallTimeoutDays': { label: 'Stall timeout', days: true },
  'mandate.staffing.setter': { label: 'Setter staffing' },
  'mandate.staffing.closer': { label: 'Closer staffing' },
  'mandate.staffing.nurturer': { label: 'Nurturer staffing' },
  // A key's policy (D-68), as the policy editor labels its fields.
  'policy.maxDealValueUsd': { label: policyLabel('maxDealValueUsd'), usd: true },
  'policy.minCloseValuePct': { label: policyLabel('minCloseValuePct'), percent: true },
  'policy.allowedMoves': { label: policyLabel('allowedMoves') },
  'policy.closesPerDay': { label: policyLabel('closesPerDay') },
  'policy.closedValuePerDayUsd': { label: policyLabel('closedValuePerDayUsd'), usd: true },
  'policy.onLimit': { label: policyLabel('onLimit') },
  'policy.approvalsRequired': { label: policyLabel('approvalsRequired') },
  'policy.approvalTtlHours': { label: policyLabel('approvalTtlHours'), hours: true },
  reason: { label: 'Reason' },
  note: { label: 'Note' },
};

/** A field by its path: a staffing rule's parts are named for their role, as the form shows them. */
function fieldOf(path: string): Field {
  const known = FIELDS[path];
  if (known) return known;
  const rule = /^mandate\.staffing\.(\w+)\.humanIf(?:\.(minDealSizeUsd|signals))?\b/.exec(path);
  if (rule) {
    const role = rule[1][0].toUpperCase() + rule[1].slice(1);
    if (rule[2] === undefined) return { label: `${role} staffing` };
    return rule[2] === 'signals' ? { label: `${role}’s signals` } : { label: `${role}’s deal size`, usd: true };
  }
  return { label: humanize(path.split('.').pop() ?? path) };
}

/** The sentence for a bound the validator states (`must be >= 0.005`), or undefined. */
function boundWords(field: Field, rest: string, show: (n: string) => string): string | undefined {
  const { label } = field;
  let m = /^must NOT have fewer than (\d+) characters?$/.exec(rest);
  if (m) return m[1] === '1' ? `${label} cannot be empty` : `${label} needs at least ${m[1]} characters`;
  m = /^must NOT have more than (\d+) characters?$/.exec(rest);
  if (m) return `${label} is too long: at most ${m[1]} characters`;
  m = /^must NOT have (fewer|more) than (\d+) items?$/.exec(rest);
  if (m) return `${label} takes at ${m[1] === 'fewer' ? 'least' : 'most'} ${m[2]}`;
  m = /^must be (>=|<=|>|<) (-?[\d.e+]+)$/.exec(rest);
  if (!m) return undefined;
  const [, op, n] = m;
  // The least amount of money the API takes (0.005) is the one that rounds to a cent.
  const bound = field.usd && Number(n) > 0 && Number(n) < 0.01 ? money(0.01) : show(n);
  if (op === '>=') return Number(n) === 0 ? `${label} cannot be negative` : `${label} must be at least ${bound}`;
  if (op === '<=') return `${label} must be at most ${bound}`;
  return `${label} must be ${op === '>' ? 'more' : 'less'} than ${bound}`;
}

/**
 * One violation (`mandate.commissionPct: 0.5 is above maxCommissionPct 0.12`) as a sentence
 * (`Commission 50% is above the 12% maximum`); a shape not known here keeps its words, with the
 * field's label in front.
 */
export function violationWords(line: string): string {
  const match = /^([\w.]+): (.*)$/.exec(line);
  if (!match) return humanize(line);
  const [, path, rest] = match;
  const field = fieldOf(path);
  const show = (n: string) =>
    field.percent
      ? percent(Number(n))
      : field.usd
        ? money(Number(n))
        : field.days
          ? plural(Number(n), 'day')
          : field.hours
            ? plural(Number(n), 'hour')
            : n;
  let m = /^(-?[\d.e+]+) is above (.+?) (-?[\d.e+]+)$/.exec(rest);
  if (m) return `${field.label} ${show(m[1])} is above the ${show(m[3])} maximum`;
  m = /^(-?[\d.e+]+) is below (-?[\d.e+]+)$/.exec(rest);
  if (m) return `${field.label} cannot be below ${show(m[2])} (it is ${show(m[1])})`;
  m = /^(-?[\d.e+]+) is outside (\d+) to (\d+)$/.exec(rest);
  if (m) return `${field.label} must be from ${m[2]} to ${m[3]} days (it is ${m[1]})`;
  if (rest === 'must be a number') return `${field.label} must be a number`;
  if (rest === 'must be an integer') return `${field.label} must be a whole number`;
  if (rest === 'is required') return `${field.label} is required`;
  if (rest === 'unknown field') return `${field.label} is not a field the service takes`;
  m = /^must be a number from (-?[\d.e+]+) to (-?[\d.e+]+)$/.exec(rest);
  if (m) return `${field.label} must be from ${show(m[1])} to ${show(m[2])}`;
  if (rest.startsWith('needs minDealSizeUsd or signals'))
    return `${field.label}: “a human if…” needs a deal size or a signal (a rule with no condition never holds)`;
  m = /^must be an array of at most (\d+) signal names/.exec(rest);
  if (m)
    return `${field.label}: at most ${m[1]} signals, each a lowercase letter then lowercase letters, digits or underscores`;
  m = /^must be one of (.+)$/.exec(rest);
  if (m) return `${field.label} must be one of ${m[1]}`;
  return boundWords(field, rest, show) ?? `${field.label}: ${humanize(rest)}`;
}

/** What a refusal says to the person who acted (the raw message stays in `raw`). */
export function errorWords(error: ApiError | undefined, closer?: (id: string) => string): string {
  if (!error) return 'The service answered nothing we could read. Try again.';
  if (error.violations && error.violations.length > 0) return violationsWords(error.violations);
  const policy = policyRefusalWords(error);
  if (policy) return policy;
  switch (error.code) {
    case 'POLICY_LIMIT': {
      const limits = (error as { limits?: PolicyLimit[] }).limits ?? [];
      return limits.length > 0
        ? `Refused by the key’s policy, nothing moved: ${limitsWords(limits)}.`
        : humanize(error.error, closer);
    }
    case 'APPROVAL_PENDING':
      return 'This deal already waits on an approval: nothing moved. It can be decided on the Approvals page.';
    case 'GIG_NOT_OPEN':
      return `${humanize(error.error, closer)} Someone was quicker: the desk shows the gigs still open.`;
    case 'RATE_LIMITED':
      return 'Too many requests: wait a moment and try again.';
    case 'STORE_BUSY':
    case 'STORE_UNAVAILABLE':
      return 'The service is busy or its store is unavailable: try again in a moment.';
    default:
      return humanize(error.error, closer);
  }
}

/**
 * A body's violations as sentences. `PUT /keys/{id}/policy` takes a policy or null, so a policy
 * the schema refuses is also said to be "not null": that line says nothing to a person.
 */
function violationsWords(violations: readonly string[]): string {
  const said = violations.filter((line) => line !== 'policy: must be a null');
  return (said.length > 0 ? said : violations).map(violationWords).join('. ');
}

/** A failed read (a thrown fetch or a listing's HTTP error) as words for a person. */
export function unreachableWords(error: unknown): string {
  if (error instanceof TypeError) return 'Cannot reach the service. Retrying…';
  const status = /HTTP (\d+)/.exec(String(error))?.[1];
  return status ? `The service answered an error (HTTP ${status}). Retrying…` : 'Cannot reach the service. Retrying…';
}
