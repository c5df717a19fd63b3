// D-28: a prefix and a number padded to four digits (more digits past 9999).
export type IdKind = 'deal' | 'gig' | 'closer';

export function formatId(kind: ListKind, n: number): string {
  return `${kind}_${String(n).padStart(4, '0')}`;
}

/** Id order is number order: gig_9999 comes before gig_10000 (plain text order would not). */
export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** Every kind of numbered id, those of the accounts (D-51, D-52) and refused proposals (D-61) too. */
export type ListKind = IdKind | 'seller' | 'key' | 'prop';

const SHAPES: Record<ListKind, RegExp> = {
  deal: /^deal_\d{4,}$/,
  gig: /^gig_\d{4,}$/,
  closer: /^closer_\d{4,}$/,
  seller: /^seller_\d{4,}$/,
  key: /^key_\d{4,}$/,
  prop: /^prop_\d{4,}$/,
};

/**
 * Whether a string could be an id of this kind. Ids are only ever made by formatId, so one of
 * any other shape (too long, a NUL byte, anything) names nothing: it is unknown, never an error
 * (D-5), and no store is asked about it.
 */
export function couldBeId(kind: ListKind, id: string): boolean {
  return id.length <= 24 && SHAPES[kind].test(id);
}

/**
 * D-28: a provisional id, what a decision calls a record it creates before the record has its
 * number (numbers are taken only once the gate has accepted, and never given back). `deal_9` and
 * seventeen digits: no sequence reaches that, so it is never a real id. The step that numbers a
 * unit's records puts the real ids in its place (service/step.ts); a dry run keeps it, and its
 * answer shows such an id as null (D-48).
 */
export function isProvisionalId(id: string): boolean {
  return PROVISIONAL.test(id);
}

const PROVISIONAL = /^(deal|gig|closer)_9\d{17}$/;
const PROVISIONAL_IN_TEXT = /\b(deal|gig|closer)_9\d{17}\b/g;

/**
 * A text (an activity note) with each provisional id written as the id numbered 0, which no
 * record ever has (numbers start at 1): what a dry run's notes say of a record not yet made.
 */
export function unnumberedText(text: string): string {
  return text.includes('_9') ? text.replace(PROVISIONAL_IN_TEXT, (_, kind: IdKind) => formatId(kind, 0)) : text;
}

/** A string with every provisional id in `renames` replaced by its real id. */
export function renameText(text: string, renames: ReadonlyMap<string, string>): string {
  let renamed = text;
  for (const [provisional, id] of renames)
    if (renamed.includes(provisional)) renamed = renamed.replaceAll(provisional, id);
  return renamed;
}

/**
 * A value (records, events, answers: plain data) with every provisional id in `renames` replaced.
 * What holds none is kept as it is, not copied: a unit's events are mostly ids of records that
 * exist already, and every copy is garbage.
 */
export function renameIds<T>(value: T, renames: ReadonlyMap<string, string>): T {
  if (renames.size === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.includes('_9') ? renameText(v, renames) : v;
    if (typeof v !== 'object' || v === null) return v;
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const item = walk(v[i]);
        if (item === v[i]) continue;
        out ??= [...v];
        out[i] = item;
      }
      return out ?? v;
    }
    if (v instanceof Map) return new Map([...v].map(([k, x]) => [walk(k), walk(x)]));
    if (v instanceof Set) return new Set([...v].map(walk));
    if (Object.getPrototypeOf(v) !== Object.prototype) return v;
    let out: Record<string, unknown> | undefined;
    for (const key in v) {
      const item = (v as Record<string, unknown>)[key];
      const renamed = walk(item);
      if (renamed === item) continue;
      out ??= { ...(v as Record<string, unknown>) };
      out[key] = renamed;
    }
    return out ?? v;
  };
  return walk(value) as T;
}
