// The console's words (D-228): stage labels, money and percentages as people read them, ids as
// names (`gig 3`, `deal 7`), signals and staffing rules as sentences. Every page says things
// through here and its siblings (error-words.ts: refusals and violations; activity-words.ts: a
// deal's activity; proposal-words.ts: refused proposals; closer-names.ts and actor-names.ts:
// closers', principals' and keys' names; notice.ts: notices that end, D-230), so that
// `closed_won`, `closer_0001`, `gig_0003` or 0.12 never reach a person; the raw text stays
// available (a title, or a details element).
import type { Role, Stage } from '../src/domain/stages.ts';
import type { Deal, Gig } from './api.ts';

/** The stage as the board's column heads name it. */
export const STAGE_LABELS: Record<Stage, string> = {
  sourced: 'Sourced',
  qualified: 'Qualified',
  meeting: 'Meeting',
  proposal: 'Proposal',
  negotiation: 'Negotiation',
  closed_won: 'Closed won',
  closed_lost: 'Closed lost',
};

export const stageLabel = (stage: string) => STAGE_LABELS[stage as Stage] ?? stage.replaceAll('_', ' ');

const whole = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 });
const cents = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });

/** Money in a sentence: `$18,000`, or `$18,000.50` when there are cents. */
export const money = (usd: number) => (Number.isInteger(usd) ? whole : cents).format(usd);

/** A fraction as a percentage: 0.12 → `12%`, 0.125 → `12.5%`. */
export const percent = (fraction: number) => `${Math.round(fraction * 10000) / 100}%`;

/** `1 gig`, `3 gigs`; `many` when the plural is not the word and an s. */
export const plural = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** `gig_0003` → `gig 3` (an id of another shape is kept as it is). */
export function gigName(id: string): string {
  const n = /^gig_0*(\d+)$/.exec(id)?.[1];
  return n ? `gig ${n}` : id;
}

/** `deal_0007` → `deal 7`. */
export function dealName(id: string): string {
  const n = /^deal_0*(\d+)$/.exec(id)?.[1];
  return n ? `deal ${n}` : id;
}

/** A signal as words: `gone_dark` → `gone dark`. */
export const signalWords = (signal: string) => signal.replaceAll('_', ' ');

// ── sentences ──────────────────────────────────────────────────────────────────────────────────

/** Ids and stage names in a server's text, as words: `gig gig_0001` → `gig 1`, `closed_won` → `Closed won`. */
export function humanize(text: string, closer: (id: string) => string = (id) => id): string {
  return text
    .replace(/\b([Gg])ig (gig_\d+)/g, (_, g: string, id: string) => `${g}ig ${gigName(id).slice(4)}`)
    .replace(/\bgig_\d+\b/g, gigName)
    .replace(/\bdeal_\d+\b/g, dealName)
    .replace(/\bcloser_\d+\b/g, closer)
    .replace(/\b(closed_won|closed_lost)\b/g, (s) => stageLabel(s).toLowerCase())
    .replace(/\b[a-z]+(?:_[a-z0-9]+)+\b/g, signalWords);
}

/** A staffing rule as a sentence: who works the role. */
export function staffingSentence(role: Role, rule: Deal['mandate']['staffing'][Role]): string {
  if (rule === 'agent') return 'The agent';
  if (rule === 'human') return `A human ${role}`;
  const { minDealSizeUsd, signals = [] } = (rule as { humanIf: { minDealSizeUsd?: number; signals?: string[] } })
    .humanIf;
  const when: string[] = [];
  if (minDealSizeUsd !== undefined) when.push(`the list value is at least ${money(minDealSizeUsd)}`);
  if (signals.length === 1) when.push(`the deal carries the signal “${signalWords(signals[0])}”`);
  else if (signals.length > 1)
    when.push(`the deal carries any of the signals ${signals.map((s) => `“${signalWords(s)}”`).join(', ')}`);
  return when.length === 0 ? 'The agent' : `A human ${role} when ${when.join(', or when ')}; otherwise the agent`;
}

/** A gig as the desk and the deal page name it: `gig 3 (closer role, Acme deal)`. */
export const gigTitle = (gig: Pick<Gig, 'id' | 'role' | 'brief'>) =>
  `${gigName(gig.id)} (${gig.role} role, ${gig.brief.account.name} deal)`;

/** A time as the pages show it: the person's locale and zone. */
export const when = (iso: string) => new Date(iso).toLocaleString();
