// D-79 to D-82: the ledger's records, queries and answers. Money in USD with 2 decimals (a
// balance past 2^53 cents is written as its exact digits), times ISO 8601 UTC.
import { Type } from '@sinclair/typebox';
import { TRANSFER_KINDS } from '../domain/ledger/transfers.ts';
import { PATTERN_WORDS, pageParams, Timestamp, Usd, UsdInput } from './common.ts';

const ACCOUNT_PATTERN =
  '^(platform:fees|seller:(none|seller_([0-9]{4}|[1-9][0-9]{4,}))|closer:closer_([0-9]{4}|[1-9][0-9]{4,})(:(pending|available|paid))?)$';

const Account = (description: string) =>
  Type.String({
    maxLength: 64,
    pattern: ACCOUNT_PATTERN,
    [PATTERN_WORDS]:
      'must be an account: `seller:<sellerId>`, `closer:<closerId>` (its three), `closer:<closerId>:pending|available|paid`, or `platform:fees`',
    description,
    examples: ['closer:closer_0001'],
  });

const Instant = (description: string, example: string) =>
  Type.String({
    examples: [example],
    pattern:
      '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])(T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d{1,3})?)?(Z|[+-]\\d{2}:\\d{2}))?$',
    [PATTERN_WORDS]: 'must be an ISO 8601 date (2026-11-01) or time (2026-11-01T09:30:00Z)',
    description,
  });

export const TransferSchema = Type.Object(
  {
    id: Type.String({ description: '`txn_NNNN`' }),
    at: Timestamp,
    debit: Type.String({ description: 'the account whose balance goes down by the amount' }),
    credit: Type.String({ description: 'the account whose balance goes up by it' }),
    amountUsd: Usd('above zero'),
    kind: Type.Union(TRANSFER_KINDS.map((kind) => Type.Literal(kind))),
    dealId: Type.Optional(Type.String()),
    gigId: Type.Optional(Type.String()),
    payoutId: Type.Optional(Type.String()),
    refundId: Type.Optional(Type.String()),
    reverses: Type.Optional(Type.String({ description: 'the transfer a reversal corrects' })),
    releases: Type.Optional(Type.String({ description: 'the earning a release moves from pending to available' })),
  },
  { $id: 'Transfer' },
);

export const RefundSchema = Type.Object(
  {
    id: Type.String({ description: '`rfd_NNNN`' }),
    dealId: Type.String(),
    amountUsd: Usd('refunded to the customer'),
    reason: Type.String(),
    at: Timestamp,
    transfers: Type.Array(Type.Ref(TransferSchema), { description: 'the reversals it booked' }),
  },
  { $id: 'Refund' },
);

export const PayoutSchema = Type.Object(
  {
    id: Type.String({ description: '`po_NNNN`' }),
    closerId: Type.String(),
    amountUsd: Usd('the available balance paid'),
    status: Type.Literal('paid'),
    paidAt: Timestamp,
    reference: Type.Union([Type.String(), Type.Null()], { description: 'what the operator did to move the money' }),
    transfers: Type.Array(Type.Ref(TransferSchema)),
  },
  { $id: 'Payout' },
);

export const RefundBody = Type.Object(
  {
    amountUsd: UsdInput('the amount refunded to the customer'),
    reason: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { additionalProperties: false },
);

export const PayoutRunBody = Type.Object(
  { reference: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'e.g. the bank batch id' })) },
  { additionalProperties: false },
);

export const PayoutRunSchema = Type.Object({
  at: Timestamp,
  reference: Type.Union([Type.String(), Type.Null()]),
  payouts: Type.Array(Type.Ref(PayoutSchema)),
  totalUsd: Usd('paid by this run in all'),
});

export const BalanceQuery = Type.Object(
  {
    account: Account('the account'),
    asOf: Type.Optional(
      Instant('the balance as of this platform time (default now; a later time is now)', '2026-11-01'),
    ),
  },
  { additionalProperties: false },
);

export const BalanceSchema = Type.Object({
  account: Type.String(),
  balanceUsd: Usd("the sum of the account's transfers (a closer's three together when no bucket is named)"),
  asOf: Timestamp,
  pendingUsd: Type.Optional(Usd('a closer: held')),
  availableUsd: Type.Optional(Usd('a closer: to be paid by the next run (below zero: a clawback)')),
  paidUsd: Type.Optional(Usd('a closer: paid out')),
});

export const TransferQuery = Type.Object(
  {
    account: Type.Optional(Account('transfers into or out of this account')),
    dealId: Type.Optional(Type.String({ maxLength: 64, examples: ['deal_0001'] })),
    from: Type.Optional(Instant('at or after', '2026-11-01')),
    to: Type.Optional(Instant('before', '2026-12-01T00:00:00Z')),
    ...pageParams('txn'),
  },
  { additionalProperties: false },
);

export const PayoutQuery = Type.Object(
  { closerId: Type.Optional(Type.String({ maxLength: 64, examples: ['closer_0001'] })), ...pageParams('po') },
  { additionalProperties: false },
);

export const MonthQuery = Type.Object(
  {
    month: Type.String({
      pattern: '^\\d{4}-(0[1-9]|1[0-2])$',
      [PATTERN_WORDS]: 'must be a month, YYYY-MM',
      description: 'a month of platform time (UTC)',
      examples: ['2026-11'],
    }),
  },
  { additionalProperties: false },
);

const StatementLine = Type.Object({
  transfer: Type.Ref(TransferSchema),
  effectUsd: Usd("what it did to the statement's balance"),
});

export const CloserStatementSchema = Type.Object({
  closerId: Type.String(),
  month: Type.String(),
  openingUsd: Usd('owed to the closer (pending and available) when the month began'),
  earnedUsd: Usd('commissions and fees booked'),
  clawedBackUsd: Usd("refunds' reversals"),
  paidUsd: Usd('payouts'),
  closingUsd: Usd('opening + earned − clawed back − paid'),
  lines: Type.Array(StatementLine),
});

export const SellerStatementSchema = Type.Object({
  sellerId: Type.String(),
  month: Type.String(),
  openingUsd: Usd("the Seller's balance when the month began (below zero by what it owes)"),
  commissionsUsd: Usd('commissions booked'),
  platformFeesUsd: Usd("the platform's fees"),
  feesUsd: Usd('setter and nurturer fees'),
  refundsUsd: Usd('given back by refunds'),
  closingUsd: Usd('opening − commissions − platform fees − fees + refunds'),
  lines: Type.Array(StatementLine),
});
