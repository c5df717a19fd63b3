// The ledger's commands as the simulation sends them (D-80, D-81): refunds of random parts of won
// deals (mostly of what is left, now and then more, which must be refused, or of a deal not won),
// aimed half the time at a deal that paid a commission, so that reversals meet held and released
// earnings and clawbacks happen; and payout runs by the operator. The earnings are released by the
// timers that the clock and timers steps run, past a hold of 0 to 2 days (world.ts). A refund's
// answer is held to what the state before it says it must be; what a payout run must leave is a
// step check (books.ts).
import { OPERATOR } from '../domain/access.ts';
import { formatUsd } from '../domain/money.ts';
import type { Refusal } from '../domain/refusal.ts';
import type { Command } from './commands.ts';
import { act } from './door.ts';
import { ids, ownerOf } from './inputs.ts';
import type { SimSnapshot, World } from './world.ts';

/** What a refund must be answered, as the state before it says. */
type Expected = 'refunded' | 'REFUND_EXCEEDS_VALUE' | 'DEAL_NOT_CLOSED_WON' | 'DEAL_NOT_FOUND';

export function ledgerCommands(world: World): Command[] {
  const dice = world.dice;
  const { random, chance, pick } = dice;
  const svc = () => world.service;
  return [
    [
      'refund',
      5,
      async (s) => {
        const { books } = s as SimSnapshot;
        const won = s.deals.filter((d) => d.stage === 'closed_won');
        const paying = new Set(books.transfers.filter((t) => t.kind === 'commission').map((t) => t.dealId));
        const chosen =
          (chance(0.5) ? pick(won.filter((d) => paying.has(d.id))) : undefined) ??
          (chance(0.9) ? pick(won) : undefined);
        const id = chosen?.id ?? ids(dice, s).deal();
        const deal = chosen ?? s.deals.find((d) => d.id === id);
        const refunded = (books.refunds ?? [])
          .filter((r) => r.dealId === id)
          .reduce((sum, r) => sum + r.amountCents, 0);
        const left = (deal?.finalValueCents ?? 0) - refunded;
        // Mostly a part of what is left (now and then all of it), else more than is left.
        const roll = random();
        const cents =
          roll < 0.15 || left <= 0
            ? left + 1 + Math.floor(random() * 100_000)
            : roll < 0.3
              ? left
              : 1 + Math.floor(random() * Math.ceil(left / 2));
        const expected: Expected =
          deal === undefined
            ? 'DEAL_NOT_FOUND'
            : deal.stage !== 'closed_won'
              ? 'DEAL_NOT_CLOSED_WON'
              : cents > left
                ? 'REFUND_EXCEEDS_VALUE'
                : 'refunded';
        const input = { amountUsd: cents / 100, reason: `returned by the simulation's customer (${formatUsd(cents)})` };
        const outcome = (await act(world, 'refundDeal', ownerOf(s, id), { kind: 'deal', id }, (c, id) =>
          svc().run(svc().ledger.refund(id, input, c)),
        )) as { ok: boolean; refusal?: Refusal; value?: { refund: { amountCents: number } } };
        judge(world, id, cents, expected, outcome);
        return outcome;
      },
    ],
    [
      'payout-run',
      2,
      () => {
        const reference = chance(0.5) ? `batch-${Math.floor(random() * 1e6)}` : undefined;
        return act(world, 'runPayouts', [OPERATOR], undefined, (c) => svc().run(svc().ledger.payoutRun(reference, c)));
      },
    ],
  ];
}

/**
 * D-81: a refund within what is left of a won deal is made, of the amount sent; one past it is
 * refused REFUND_EXCEEDS_VALUE, one of a deal not won DEAL_NOT_CLOSED_WON (of no deal, before the
 * episode's first, DEAL_NOT_FOUND). In keys mode the door may refuse first (a key, a scope, another
 * tenant's deal, found as none): only the ledger's own answers are judged there; in the demo every
 * answer is.
 */
function judge(
  world: World,
  dealId: string,
  cents: number,
  expected: Expected,
  outcome: { ok: boolean; refusal?: Refusal; value?: { refund: { amountCents: number } } },
): void {
  const got = outcome.ok ? 'refunded' : (outcome.refusal?.code ?? 'no code');
  const ledgers = got === 'refunded' || got === 'REFUND_EXCEEDS_VALUE' || got === 'DEAL_NOT_CLOSED_WON';
  const wrong =
    (ledgers || world.cast === undefined ? got !== expected : false) ||
    (outcome.ok && outcome.value?.refund.amountCents !== cents);
  if (wrong)
    world.found.push({
      invariant: 'books',
      message: `a refund of ${cents} cents of ${dealId} was answered ${got}${outcome.ok ? ` (${outcome.value?.refund.amountCents} cents)` : ''}; expected ${expected}`,
      ids: [dealId],
    });
}
