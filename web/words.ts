// The console's words (D-228): stage labels, money and percentages as people read them, names
// instead of ids, staffing rules and API refusals as sentences, and notices that end (D-230).
// Every page says things through here, so that `closed_won`, `closer_0001`, `gig_0003` or 0.12
// never reach a person; the raw text stays available (a title, or a details element).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { GONE_DARK, type Role, type Stage } from '../src/domain/stages.ts';
import { type ApiError, type ApiKeyRecord, accounts, allClosers, type Deal, type Gig } from './api.ts';
import { AUTH, may, type Session, useSession } from './session.ts';

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

// ── closers' names ─────────────────────────────────────────────────────────────────────────────

type Names = ReadonlyMap<string, string>;
let names: Promise<Names> | undefined;

/** The closers' names by id, read once (GET /closers/closers) and again only for an unknown id. */
function readNames(): Promise<Names> {
  names ??= allClosers()
    .then((all) => new Map(all.map((c) => [c.id, c.name])))
    .catch(() => {
      names = undefined;
      return new Map();
    });
  return names;
}

/** The closers' names, and a function naming one (its id until the names are read). */
export function useCloserNames(ids: readonly string[] = []): (id: string) => string {
  const [known, setKnown] = useState<Names>(new Map());
  const wanted = ids.join();
  useEffect(() => {
    let live = true;
    (async () => {
      let found = await readNames();
      if (ids.some((id) => !found.has(id))) {
        names = undefined;
        found = await readNames();
      }
      if (live) setKnown(found);
    })();
    return () => {
      live = false;
    };
  }, [wanted]);
  return useCallback((id: string) => known.get(id) ?? id, [known]);
}

/** The closer ids a text names. */
export const closerIdsIn = (text: string) => [...text.matchAll(/\bcloser_\d+\b/g)].map((m) => m[0]);

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

/** The fields a violation may name, as the form labels them; `percent` ones are fractions. */
const FIELDS: Record<string, { label: string; percent?: true; usd?: true }> = {
  'account.name': { label: 'Account name' },
  'account.industry': { label: 'Industry' },
  'account.actor': { label: 'Actor' },
  listValueUsd: { label: 'List value', usd: true },
  'mandate.commissionPct': { label: 'Commission', percent: true },
  'mandate.maxCommissionPct': { label: 'Commission cap', percent: true },
  'mandate.floorPct': { label: 'Floor', percent: true },
  'mandate.fees.setterUsd': { label: 'Setter fee', usd: true },
  'mandate.fees.nurturerUsd': { label: 'Nurturer fee', usd: true },
  'mandate.stallTimeoutDays': { label: 'Stall timeout' },
  'mandate.staffing.setter': { label: 'Setter staffing' },
  'mandate.staffing.closer': { label: 'Closer staffing' },
  'mandate.staffing.nurturer': { label: 'Nurturer staffing' },
};

/**
 * One violation (`mandate.commissionPct: 0.5 is above maxCommissionPct 0.12`) as a sentence
 * (`Commission 50% is above the 12% maximum`); a shape not known here keeps its words, with the
 * field's label in front.
 */
export function violationWords(line: string): string {
  const match = /^([\w.]+): (.*)$/.exec(line);
  if (!match) return humanize(line);
  const [, path, rest] = match;
  const field = FIELDS[path] ?? { label: humanize(path.split('.').pop() ?? path) };
  const show = (n: string) => (field.percent ? percent(Number(n)) : field.usd ? money(Number(n)) : n);
  let m = /^(-?[\d.e+]+) is above (.+?) (-?[\d.e+]+)$/.exec(rest);
  if (m) return `${field.label} ${show(m[1])} is above the ${show(m[3])} maximum`;
  m = /^(-?[\d.e+]+) is below (-?[\d.e+]+)$/.exec(rest);
  if (m) return `${field.label} cannot be below ${show(m[2])} (it is ${show(m[1])})`;
  m = /^(-?[\d.e+]+) is outside (\d+) to (\d+)$/.exec(rest);
  if (m) return `${field.label} must be from ${m[2]} to ${m[3]} days (it is ${m[1]})`;
  if (rest === 'must be a number') return `${field.label} must be a number`;
  if (rest === 'must be an integer') return `${field.label} must be a whole number`;
  if (rest === 'is required') return `${field.label} is required`;
  return `${field.label}: ${humanize(rest)}`;
}

/** What a refusal says to the person who acted (the raw message stays in `raw`). */
export function errorWords(error: ApiError | undefined, closer?: (id: string) => string): string {
  if (!error) return 'The service answered nothing we could read. Try again.';
  if (error.violations && error.violations.length > 0) return error.violations.map(violationWords).join('. ');
  switch (error.code) {
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

/** A failed read (a thrown fetch or a listing's HTTP error) as words for a person. */
export function unreachableWords(error: unknown): string {
  if (error instanceof TypeError) return 'Cannot reach the service. Retrying…';
  const status = /HTTP (\d+)/.exec(String(error))?.[1];
  return status ? `The service answered an error (HTTP ${status}). Retrying…` : 'Cannot reach the service. Retrying…';
}

// ── a deal's activity ──────────────────────────────────────────────────────────────────────────

type Entry = Deal['activity'][number];

/**
 * D-229: the console's moves on a deal page carry this note: in the demo the advance records
 * every Seller's move as the agent's (the API has no field for the Seller), so the console says
 * where it was made rather than naming the agent.
 */
export const CONSOLE_NOTE = 'from the console';

/** Who did an entry and what, in words. */
export function activityWords(entry: Entry, closer: (id: string) => string): { who: string; what: string } {
  let note = entry.note;
  let who = entry.by === 'agent' ? 'The agent' : entry.by === 'human' ? 'A human closer' : 'The service';
  if (entry.actor) who = entry.actor.principal === 'operator' ? 'The operator' : closer(entry.actor.principal);
  const fromConsole = new RegExp(`: ${CONSOLE_NOTE}(?:\\. Reason: (.*))?$`).exec(note);
  let reason: string | undefined;
  if (fromConsole) {
    note = note.slice(0, fromConsole.index);
    reason = fromConsole[1];
    if (!entry.actor) who = 'From the console';
  }
  let what: string;
  const moved = /^Advanced (\w+) to (\w+) by the (agent|human)(?: \((closer_\d+), gig (gig_\d+)\))?(?:: (.*))?$/.exec(
    note,
  );
  const closedWon = /^Closed won at (\S+) by the (agent|human)(?: \((closer_\d+), gig (gig_\d+)\))?(?:: (.*))?$/.exec(
    note,
  );
  const posted = /^The (\w+) role needs a human: gig (gig_\d+) posted to the closer marketplace\.$/.exec(note);
  if (moved) {
    const [, from, to, , closerId, gigId, extra] = moved;
    if (closerId && !entry.actor) who = closer(closerId);
    what =
      to === 'closed_lost'
        ? `Closed lost (was at ${stageLabel(from)})`
        : `Moved from ${stageLabel(from)} to ${stageLabel(to)}`;
    if (gigId) what += ` on ${gigName(gigId)}`;
    if (extra) what += `: ${extra}`;
  } else if (closedWon) {
    const [, value, , closerId, gigId, extra] = closedWon;
    if (closerId && !entry.actor) who = closer(closerId);
    what = `Closed won at ${value.replace(/\.00$/, '')}${gigId ? ` on ${gigName(gigId)}` : ''}${extra ? `: ${extra}` : ''}`;
  } else if (posted) {
    what = `${gigName(posted[2]).replace('gig', 'Gig')} posted for the ${posted[1]} role: it needs a human.`;
  } else what = humanize(note, closer);
  if (reason) what += `. Reason: ${reason}`;
  return { who, what };
}

// ── the deal's stall ───────────────────────────────────────────────────────────────────────────

/** When the deal went dark (its latest entry reporting gone_dark), if it carries it. */
export function stalledSince(deal: Deal): string | undefined {
  if (!deal.signals.includes(GONE_DARK)) return undefined;
  for (let i = deal.activity.length - 1; i >= 0; i--) {
    if (deal.activity[i].note.includes(GONE_DARK) || deal.activity[i].note.startsWith('Deal stalled'))
      return deal.activity[i].at;
  }
  return deal.activity.at(-1)?.at;
}

/** A gig as the desk and the deal page name it: `gig 3 (closer role, Acme deal)`. */
export const gigTitle = (gig: Pick<Gig, 'id' | 'role' | 'brief'>) =>
  `${gigName(gig.id)} (${gig.role} role, ${gig.brief.account.name} deal)`;

// ── notices that end (D-230) ───────────────────────────────────────────────────────────────────

/** How long a notice of something done stays: long enough to read, not forever. */
export const NOTICE_MS = 6000;

/**
 * A notice: shown when set, gone after NOTICE_MS and on navigation (a hash change). Refusals are
 * kept until the next notice or navigation, since a person may need them to decide again.
 */
export function useNotice<T extends { refused?: boolean } | string>(): [
  T | undefined,
  (notice: T | undefined) => void,
] {
  const [notice, setNotice] = useState<T | undefined>();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => {
    const clear = () => setNotice(undefined);
    addEventListener('hashchange', clear);
    return () => {
      removeEventListener('hashchange', clear);
      clearTimeout(timer.current);
    };
  }, []);
  const say = useCallback((next: T | undefined) => {
    clearTimeout(timer.current);
    setNotice(next);
    const lasting = typeof next === 'object' && next !== null && next.refused;
    if (next !== undefined && !lasting) timer.current = setTimeout(() => setNotice(undefined), NOTICE_MS);
  }, []);
  return [notice, say];
}

// ── refused proposals (D-61) ───────────────────────────────────────────────────────────────────

/** Why the gate refused, by its code, in a few words (the code itself is shown beside them). */
const REFUSAL_CODE_WORDS: Record<string, string> = {
  GATE_BELOW_FLOOR: 'Below the floor',
  GATE_ILLEGAL_MOVE: 'A move the stages do not allow',
  GATE_VALUE_REQUIRED: 'A close without a value',
  GATE_COMMISSION_CAP: 'Above the commission cap',
  DEAL_TERMINAL: 'The deal was already closed',
  DEAL_STALLED: 'The deal had gone dark',
  NOT_HUMAN_TRACK: 'The deal was not on the human track',
  GIG_NOT_CLAIMED: 'The gig was not claimed',
  GIG_NOT_OPEN: 'The gig was not open',
  GIG_NOT_ACTIVE: 'The gig was no longer active',
  GIG_CLAIMED: 'The gig was already claimed',
  GIG_NOT_NURTURER: 'Not a nurturer’s gig',
  NOT_CLAIMANT: 'Not the gig’s claimant',
};

/** A refusal code in words: `GATE_BELOW_FLOOR` → `Below the floor`; an unknown one made readable. */
export function refusalCodeWords(code: string): string {
  const known = REFUSAL_CODE_WORDS[code];
  if (known) return known;
  const words = code.toLowerCase().replaceAll('_', ' ');
  return words[0].toUpperCase() + words.slice(1);
}

/** Who proposes: the agent, or a human closer (through a gig). */
export const EXECUTOR_WORDS = { agent: 'The agent', human: 'Human closers' } as const;

/** What a proposal proposed, in words: `Close won at $70,000`, `Move to Qualified`, `Revive the deal`. */
export function proposedWords(proposal: { advanceTo?: string; valueUsd?: number }): string {
  const { advanceTo, valueUsd } = proposal;
  const at = valueUsd === undefined ? '' : ` at ${money(valueUsd)}`;
  if (advanceTo === undefined) return valueUsd === undefined ? 'Revive the deal' : `Move it on${at}`;
  if (advanceTo === 'closed_won') return `Close won${valueUsd === undefined ? ' (no value given)' : at}`;
  if (advanceTo === 'closed_lost') return `Close lost${at}`;
  return `Move to ${stageLabel(advanceTo)}${at}`;
}

/** The share of proposals the gate refused: `25%`, or `—` when nothing was proposed. */
export function refusalRate(accepted: number, refused: number): string {
  const all = accepted + refused;
  return all === 0 ? '—' : percent(Math.round((refused / all) * 1000) / 1000);
}

/** A time as the pages show it: the person's locale and zone. */
export const when = (iso: string) => new Date(iso).toLocaleString();

// ── keys' and principals' names (keys mode) ───────────────────────────────────────────────────

export interface ActorNames {
  /** The keys the session may list (GET /keys: a Seller's or a closer's own, the operator's all). */
  keys: readonly ApiKeyRecord[];
  /** A principal by name: the operator, a closer's or a Seller's name (its id when unknown). */
  principal(id: string): string;
  /** A key by its name and id: `“agent of A” (key_0004)`, or its id when the session cannot list it. */
  key(id: string): string;
}

/** Whether the session may list keys (GET /keys asks keys:manage, or the operator's admin). */
export const listsKeys = (session: Session) => may(session, 'keys:manage') || may(session, 'admin');

/**
 * The names of the keys and principals a session may read (keys mode; nothing in the demo): read
 * when the component mounts and again whenever `again` changes. A list the session may not read is
 * left empty, so ids stand for names.
 */
export function useActorNames(again: unknown = undefined): ActorNames {
  const state = useSession();
  const session = AUTH === 'keys' && state.status === 'signed-in' ? state.session : undefined;
  const [keys, setKeys] = useState<readonly ApiKeyRecord[]>([]);
  const [sellers, setSellers] = useState<ReadonlyMap<string, string>>(new Map());
  const closer = useCloserNames();
  useEffect(() => {
    if (!session) return;
    let live = true;
    if (listsKeys(session))
      accounts.keys().then(
        (all) => live && setKeys(all),
        () => undefined,
      );
    if (session.kind === 'operator')
      accounts.sellers().then(
        (all) => live && setSellers(new Map(all.map((s) => [s.id, s.name]))),
        () => undefined,
      );
    return () => {
      live = false;
    };
  }, [session?.keyId, again]);
  return {
    keys,
    principal: (id: string) => {
      if (id === 'operator') return 'The operator';
      if (session && id === session.principal) return session.name;
      if (id.startsWith('closer_')) return closer(id);
      return sellers.get(id) ?? id;
    },
    key: (id: string) => {
      const found = keys.find((k) => k.id === id);
      return found ? `“${found.name}” (${id})` : id;
    },
  };
}
