// D-67: a Seller corrects a deal's account or list value. Only what differs is a change; each
// change is named in one activity entry and in `deal.updated`. The floor is computed from the
// list value whenever the gate asks (gate.ts), so it follows the new one at once; a gig's brief
// was copied when the gig was posted and stays as it was.

import type { DealChange } from './deal-changes.ts';
import { accept, type Decision, entry, reject } from './decision.ts';
import { type Cents, formatUsd, usdToCents } from './money.ts';
import type { Deal } from './records.ts';
import { refuse } from './refusal.ts';

/** What a PATCH may name: a JSON merge, so `industry: null` removes the industry. */
export interface DealEdit {
  readonly account?: { readonly name?: string; readonly industry?: string | null };
  readonly listValueUsd?: number;
}

function changesOf(deal: Deal, edit: DealEdit, listValueCents: Cents | undefined): DealChange[] {
  const changes: DealChange[] = [];
  const name = edit.account?.name;
  if (name !== undefined && name !== deal.account.name) {
    changes.push({ field: 'account.name', from: deal.account.name, to: name });
  }
  const industry = edit.account?.industry;
  const was = deal.account.industry ?? null;
  if (industry !== undefined && industry !== was) changes.push({ field: 'account.industry', from: was, to: industry });
  if (listValueCents !== undefined && listValueCents !== deal.listValueCents) {
    changes.push({ field: 'listValue', from: deal.listValueCents, to: listValueCents });
  }
  return changes;
}

/** A change in the words of an activity entry: no id, the values as a person reads them. */
function described(change: DealChange): string {
  switch (change.field) {
    case 'account.name':
      return `account name “${change.from}” → “${change.to}”`;
    case 'account.industry':
      return `industry ${change.from === null ? 'none' : `“${change.from}”`} → ${change.to === null ? 'none' : `“${change.to}”`}`;
    case 'listValue':
      return `list value ${formatUsd(change.from)} → ${formatUsd(change.to)}`;
  }
}

/**
 * Decides an edit of a live deal (a terminal one is refused before this, DEAL_TERMINAL). An edit
 * that changes nothing is accepted with no events: no entry, no new version, nothing published.
 */
export function editDeal(deal: Deal, edit: DealEdit, now: number): Decision {
  let listValueCents: Cents | undefined;
  if (edit.listValueUsd !== undefined) {
    listValueCents = usdToCents(edit.listValueUsd);
    if (listValueCents < 1) {
      return reject(
        refuse.invalid('INVALID_BODY', 'The request body is invalid.', [
          'listValueUsd: must be at least 0.01 after rounding to the cent',
        ]),
      );
    }
  }
  const changes = changesOf(deal, edit, listValueCents);
  if (changes.length === 0) return accept([]);
  const note = `Edited: ${changes.map(described).join('; ')}.`;
  return accept([{ type: 'DealEdited', dealId: deal.id, changes }, entry(deal, 'service', note, now, true)]);
}
