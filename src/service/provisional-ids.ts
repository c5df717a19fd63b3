// D-28: the provisional ids a decision gives the records it creates (domain/ids.ts), before
// their numbers are taken. Nine digits random to each process and a counter: no id a request
// names is one. Only id fields are renamed (D-273), so a text that looks like one is kept as it is.
import { randomInt } from 'node:crypto';
import type { IdKind } from '../domain/ids.ts';

const PROCESS_DIGITS = randomInt(1e9).toString().padStart(9, '0');
let counter = 0;

/** A fresh provisional id of each kind, for one decision. */
export function provisionalIds(): Record<IdKind, string> {
  counter = (counter + 1) % 1e8;
  const digits = `9${PROCESS_DIGITS}${counter.toString().padStart(8, '0')}`;
  return { deal: `deal_${digits}`, gig: `gig_${digits}`, closer: `closer_${digits}` };
}
