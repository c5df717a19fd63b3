// D-67: what an edit of a deal changed, field by field, and the deal's account and list value
// after it. Kept apart from the decision (deal-edit.ts) so that evolve (state.ts) applies an
// edit without importing the decider.
import type { Cents } from './money.ts';
import type { Account, Deal } from './records.ts';

/** One field a decision changed, by the name the API gives it. */
export type DealChange =
  | { readonly field: 'account.name'; readonly from: string; readonly to: string }
  | { readonly field: 'account.industry'; readonly from: string | null; readonly to: string | null }
  | { readonly field: 'listValue'; readonly from: Cents; readonly to: Cents };

/** The account and list value after the changes. */
export function edited(deal: Pick<Deal, 'account' | 'listValueCents'>, changes: readonly DealChange[]) {
  let account: Account = deal.account;
  let listValueCents = deal.listValueCents;
  for (const change of changes) {
    if (change.field === 'account.name') account = { ...account, name: change.to };
    else if (change.field === 'account.industry') {
      const { industry: _dropped, ...rest } = account;
      account = change.to === null ? rest : { ...rest, industry: change.to };
    } else listValueCents = change.to;
  }
  return { account, listValueCents };
}
