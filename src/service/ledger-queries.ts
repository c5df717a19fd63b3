// The ledger's reads (D-80, D-82), for what the caller may see (D-54): a Seller its own account,
// a closer its own three, the operator (and the demo) every account. An account the caller may
// not see is answered as no account (404), a list holds only the caller's lines, a statement of
// another's is unknown, exactly as an id that names nothing.
import { type Caller, seesAll, seesPayoutsOf, seesSeller } from '../domain/access.ts';
import { couldBeId } from '../domain/ids.ts';
import {
  type AccountName,
  accountsOf,
  closerAccount,
  NO_SELLER,
  parseAccount,
  sellerAccount,
} from '../domain/ledger/accounts.ts';
import type { Payout } from '../domain/ledger/payouts.ts';
import {
  type CloserStatement,
  closerStatement,
  monthRange,
  owedAccounts,
  type SellerStatement,
  sellerStatement,
} from '../domain/ledger/statements.ts';
import type { Transfer } from '../domain/ledger/transfers.ts';
import { refuse } from '../domain/refusal.ts';
import type { LedgerReader } from '../store/ledger.ts';
import type { Store } from '../store/store.ts';
import type { PlatformClock } from './platform-clock.ts';
import { as } from './queries.ts';
import { fail, ok, type Result } from './result.ts';

export interface Balance {
  account: string;
  balanceCents: bigint;
  asOf: number;
  /** A closer's account: its three buckets. */
  closer?: { pendingCents: bigint; availableCents: bigint; paidCents: bigint };
}

export interface TransferQuery {
  account?: string;
  dealId?: string;
  from?: string;
  to?: string;
}

/** The accounts a caller may see: undefined for all of them. */
function ownAccounts(caller: Caller | undefined): string[] | undefined {
  if (seesAll(caller)) return undefined;
  const who = caller as Caller;
  return who.kind === 'seller'
    ? [sellerAccount(who.principal)]
    : (['pending', 'available', 'paid'] as const).map((bucket) => closerAccount(who.principal, bucket));
}

function sees(caller: Caller | undefined, name: AccountName): boolean {
  if (seesAll(caller)) return true;
  const who = caller as Caller;
  if (name.kind === 'seller') return who.kind === 'seller' && name.sellerId === who.principal;
  if (name.kind === 'closer') return who.kind === 'closer' && name.closerId === who.principal;
  return false;
}

/** A statement reads its month's lines a page at a time. */
const PAGE = 1000;

async function allTransfers(ledger: LedgerReader, accounts: readonly string[], from: number, to: number) {
  const lines: Transfer[] = [];
  for (let afterId: string | undefined; ; ) {
    const page = await ledger.transfers({ accounts, from, to, limit: PAGE, ...(afterId ? { afterId } : {}) });
    lines.push(...page);
    if (page.length < PAGE) return lines;
    afterId = page[page.length - 1]?.id;
  }
}

export class LedgerQueries {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
  ) {}

  /** D-82: an account's balance as of a platform time (now when not given; never past now). */
  async balance(account: string, asOfText: string | undefined, caller?: Caller): Promise<Result<Balance>> {
    const name = parseAccount(account);
    if (name === undefined || !sees(caller, name)) return fail(refuse.noAccount(account));
    const now = await this.clock.now();
    const asOf = asOfText === undefined ? now : Math.min(Date.parse(asOfText), now);
    return this.store.read(async (reader) => {
      if (name.kind !== 'closer') {
        const balances = await reader.ledger.balances([name.account], asOf);
        return ok({ account, balanceCents: balances.get(name.account) ?? 0n, asOf });
      }
      const [pending, available, paid] = accountsOf({ ...name, bucket: undefined }) as [string, string, string];
      const balances = await reader.ledger.balances([pending, available, paid], asOf);
      const closer = {
        pendingCents: balances.get(pending) ?? 0n,
        availableCents: balances.get(available) ?? 0n,
        paidCents: balances.get(paid) ?? 0n,
      };
      const balanceCents =
        name.bucket === undefined
          ? closer.pendingCents + closer.availableCents + closer.paidCents
          : (balances.get(name.account) ?? 0n);
      return ok({ account, balanceCents, asOf, closer });
    }, as(caller));
  }

  /** D-82: a page of transfers in id order, of the caller's accounts only. */
  transfers(query: TransferQuery, afterId: string | undefined, limit: number, caller?: Caller): Promise<Transfer[]> {
    const own = ownAccounts(caller);
    let accounts: string[] | undefined = own;
    if (query.account !== undefined) {
      const name = parseAccount(query.account);
      const asked = name === undefined ? [] : accountsOf(name);
      accounts = own === undefined ? asked : asked.filter((account) => own.includes(account));
      if (accounts.length === 0) return Promise.resolve([]);
    }
    return this.store.read(
      (reader) =>
        reader.ledger.transfers({
          limit,
          ...(accounts !== undefined ? { accounts } : {}),
          ...(query.dealId !== undefined ? { dealId: query.dealId } : {}),
          ...(query.from !== undefined ? { from: Date.parse(query.from) } : {}),
          ...(query.to !== undefined ? { to: Date.parse(query.to) } : {}),
          ...(afterId !== undefined ? { afterId } : {}),
        }),
      { oneStatement: true, ...as(caller) },
    );
  }

  /** D-80: payouts, newest first: a closer its own, the operator every closer's (or one's). */
  payouts(
    closerId: string | undefined,
    afterId: string | undefined,
    limit: number,
    caller?: Caller,
  ): Promise<Payout[]> {
    const own = seesAll(caller) ? undefined : (caller as Caller).principal;
    if (own !== undefined && closerId !== undefined && closerId !== own) return Promise.resolve([]);
    const of = own ?? closerId;
    return this.store.read(
      (reader) =>
        reader.ledger.payouts({
          limit,
          ...(of !== undefined ? { closerId: of } : {}),
          ...(afterId ? { afterId } : {}),
        }),
      { oneStatement: true, ...as(caller) },
    );
  }

  /** D-82: a closer's month; another closer's is unknown (404 as no closer). */
  closerStatement(closerId: string, month: string, caller?: Caller): Promise<Result<CloserStatement>> {
    if (!couldBeId('closer', closerId) || !seesPayoutsOf(caller, closerId))
      return Promise.resolve(fail(refuse.noCloser(closerId)));
    const { from, to } = monthRange(month);
    return this.store.read(async (reader) => {
      if ((await reader.getCloser(closerId)) === undefined) return fail(refuse.noCloser(closerId));
      const accounts = owedAccounts(closerId);
      const [balances, lines] = await Promise.all([
        reader.ledger.balances(accounts, from - 1),
        allTransfers(reader.ledger, accounts, from, to),
      ]);
      let opening = 0n;
      for (const balance of balances.values()) opening += balance;
      return ok(closerStatement(closerId, month, opening, lines));
    }, as(caller));
  }

  /** D-82: a Seller's month (`none`: the demo's deals); another Seller's is unknown. */
  sellerStatement(sellerId: string, month: string, caller?: Caller): Promise<Result<SellerStatement>> {
    const demo = sellerId === NO_SELLER && caller === undefined;
    if (!demo && (!couldBeId('seller', sellerId) || !seesSeller(caller, sellerId)))
      return Promise.resolve(fail(refuse.noSeller(sellerId)));
    const { from, to } = monthRange(month);
    return this.store.read(async (reader) => {
      if (!demo && (await reader.accounts.getSeller(sellerId)) === undefined) return fail(refuse.noSeller(sellerId));
      const account = sellerAccount(sellerId);
      const [balances, lines] = await Promise.all([
        reader.ledger.balances([account], from - 1),
        allTransfers(reader.ledger, [account], from, to),
      ]);
      return ok(sellerStatement(sellerId, month, balances.get(account) ?? 0n, lines));
    }, as(caller));
  }
}
