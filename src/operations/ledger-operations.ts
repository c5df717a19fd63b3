// The ledger (D-79 to D-82): a won deal's refunds, payout runs and payouts, balances as of any
// time, the transfers, and monthly statements. A Seller sees its own account, a closer its own
// three, the operator all (D-54); anything else is answered as unknown, and lists hold only the
// caller's own lines.
import { type Static, Type } from '@sinclair/typebox';
import type { Refund } from '../domain/ledger/refunds.ts';
import {
  BalanceQuery,
  BalanceSchema,
  CloserStatementSchema,
  MonthQuery,
  PayoutQuery,
  PayoutRunBody,
  PayoutRunSchema,
  PayoutSchema,
  RefundBody,
  RefundSchema,
  SellerStatementSchema,
  TransferQuery,
  TransferSchema,
} from '../schemas/ledger.ts';
import type { PayoutRun, RefundOutcome } from '../service/ledger-commands.ts';
import {
  balanceView,
  closerStatementView,
  payoutView,
  refundView,
  sellerStatementView,
  transferView,
} from '../views/ledger.ts';
import { page, read, write } from './operation.ts';
import { DEMO_STORE, hints, KEY_NOTE, READ_HINTS, REFUSAL_NOTE } from './tool-notes.ts';

const common = { tag: 'ledger' } as const;
const READ_LEDGER = ['deals:read', 'gigs:read', 'admin'] as const;

const TRANSFER_WORDS =
  'A transfer is {id, at, debit, credit, amountUsd, kind: commission|fee|platform_fee|release|payout|reversal, ' +
  'dealId?, gigId?, payoutId?, refundId?, reverses?, releases?}: amountUsd leaves the debit account and enters the ' +
  'credit account. Accounts: seller:<sellerId> (below zero by what the Seller owes; seller:none for a deal of no Seller), ' +
  'closer:<closerId>:pending (held), closer:<closerId>:available (paid by the next run; below zero: a clawback), ' +
  'closer:<closerId>:paid, platform:fees.';

const TRANSFER_CSV = [
  'id',
  'at',
  'debit',
  'credit',
  'amountUsd',
  'kind',
  'dealId',
  'gigId',
  'payoutId',
  'refundId',
  'reverses',
  'releases',
];

/** D-74: a statement's lines as CSV, each its transfer and its effect on the statement's balance. */
const STATEMENT_CSV = {
  columns: ['transfer.id', 'transfer.at', 'transfer.kind', 'transfer.dealId', 'transfer.gigId', 'effectUsd'],
  rows: (view: unknown) => (view as { lines: unknown[] }).lines,
};

const refundDeal = write<RefundOutcome>({
  ...common,
  id: 'refundDeal',
  method: 'POST',
  mount: 'deals',
  path: '/deals/{id}/refunds',
  summary: 'Record a refund of a won deal: reverses its share of the commission and the platform fee',
  description:
    'A closed_won deal only (409 DEAL_NOT_CLOSED_WON); refunds together at most its final value (422 ' +
    'REFUND_EXCEEDS_VALUE). After refunds of R in all of a final value V, each of the commission and the platform ' +
    'fee is reversed by round-half-up(amount × R / V) in all, so partial refunds reverse to the cent what one ' +
    "refund of their sum would; setter and nurturer fees stay earned. A commission's reversal takes from its " +
    "closer's pending balance, then its available one (below zero: a clawback, netted against later earnings). " +
    'Appends an activity entry to the deal and publishes deal.refunded.',
  body: RefundBody,
  responses: { 201: Type.Ref(RefundSchema) },
  errors: [400, 404, 409, 422],
  scope: ['deals:write'],
  idempotent: true,
  command: (service, { id, body, caller }) => service.ledger.refund(id, body as Static<typeof RefundBody>, caller),
  answer: (answers) => answers.refund,
  tool: {
    name: 'refund_deal',
    title: 'Demo store: refund a won deal',
    description: () =>
      `${DEMO_STORE} record that the customer got amountUsd of a closed_won deal back (POST {prefix}/deals/{id}/refunds ` +
      '{amountUsd, reason}). It reverses the same share of the commission and the platform fee in the ledger. ' +
      `Answers {id, dealId, amountUsd, reason, at, transfers}. ${TRANSFER_WORDS} ${KEY_NOTE} ${REFUSAL_NOTE}`,
    annotations: hints(true, false),
  },
});

const listRefunds = read({
  ...common,
  id: 'listRefunds',
  method: 'GET',
  mount: 'deals',
  path: '/deals/{id}/refunds',
  summary: "A deal's refunds, oldest first",
  responses: { 200: Type.Array(Type.Ref(RefundSchema)) },
  errors: [404],
  scope: ['deals:read', 'gigs:read', 'admin'],
  read: (service, { id, caller }) => service.queries.refunds(id, caller),
  view: (refunds: Refund[]) => refunds.map(refundView),
});

const runPayouts = write<PayoutRun>({
  ...common,
  id: 'runPayouts',
  method: 'POST',
  mount: 'root',
  path: '/payouts/runs',
  summary: 'Pay every closer whose available balance is above zero',
  description:
    "The operator's. Each such closer gets a payout {id, closerId, amountUsd, status: paid, paidAt, reference, " +
    'transfers} of its whole available balance, moved to its paid account, and payout.paid is published. Runs racing ' +
    'on any number of instances pay each available cent once. Moving the real money is outside the service: ' +
    '`reference` records what the operator did.',
  body: PayoutRunBody,
  responses: { 200: PayoutRunSchema },
  errors: [400],
  scope: ['admin'],
  idempotent: true,
  command: (service, { body, caller }) =>
    service.ledger.payoutRun((body as Static<typeof PayoutRunBody> | undefined)?.reference, caller),
  answer: (answers) => answers.payoutRun,
  tool: {
    name: 'run_payouts',
    title: 'Demo store: run payouts',
    description: () =>
      `${DEMO_STORE} pay every closer whose available balance is above zero (POST /payouts/runs {reference?}). ` +
      `Answers {at, reference, payouts, totalUsd}. ${KEY_NOTE} ${REFUSAL_NOTE}`,
    annotations: hints(false, false),
  },
});

const listPayouts = page({
  ...common,
  id: 'listPayouts',
  method: 'GET',
  mount: 'root',
  path: '/payouts',
  summary: "Payouts, newest first (a closer's own; the operator's: all, or one closer's)",
  query: PayoutQuery,
  responses: { 200: Type.Array(Type.Ref(PayoutSchema)) },
  errors: [400],
  scope: ['gigs:read', 'admin'],
  idKind: 'po',
  list: 'payouts',
  fetch: (service, filter, afterId, limit, caller) =>
    service.ledgerQueries.payouts((filter as { closerId?: string }).closerId, afterId, limit, caller),
  view: payoutView,
  csv: ['id', 'closerId', 'amountUsd', 'status', 'paidAt', 'reference'],
});

const getBalance = read({
  ...common,
  id: 'getBalance',
  method: 'GET',
  mount: 'root',
  path: '/ledger/balances',
  summary: "An account's balance as of any platform time",
  description:
    'A Seller its own account, a closer its own (closer:<id> alone: the three together, with each), the operator ' +
    'any; another is 404 ACCOUNT_NOT_FOUND, as an unknown one.',
  query: BalanceQuery,
  responses: { 200: BalanceSchema },
  errors: [400, 404],
  scope: READ_LEDGER,
  read: (service, { query, caller }) => {
    const { account, asOf } = query as Static<typeof BalanceQuery>;
    return service.ledgerQueries.balance(account, asOf, caller);
  },
  view: balanceView,
  tool: {
    name: 'get_balance',
    title: 'Demo store: get a ledger balance',
    description: () =>
      `${DEMO_STORE} an account's balance as of a platform time` +
      ' (GET /ledger/balances?account=&asOf=): {account, balanceUsd, asOf, ' +
      `pendingUsd?, availableUsd?, paidUsd?}. ${TRANSFER_WORDS}`,
    annotations: READ_HINTS,
  },
});

const listTransfers = page({
  ...common,
  id: 'listTransfers',
  method: 'GET',
  mount: 'root',
  path: '/ledger/transfers',
  summary: "The ledger's transfers in id order (the caller's own accounts')",
  query: TransferQuery,
  responses: { 200: Type.Array(Type.Ref(TransferSchema)) },
  errors: [400],
  scope: READ_LEDGER,
  idKind: 'txn',
  list: 'transfers',
  fetch: (service, filter, afterId, limit, caller) =>
    service.ledgerQueries.transfers(filter as Static<typeof TransferQuery>, afterId, limit, caller),
  view: transferView,
  csv: TRANSFER_CSV,
  tool: {
    name: 'list_transfers',
    title: 'Demo store: list ledger transfers',
    description: () =>
      `${DEMO_STORE} the transfers of the accounts you may see, in id order (GET /ledger/transfers?account=&dealId=&from=&to=). ` +
      `${TRANSFER_WORDS} Answers {transfers, nextCursor?}.`,
    annotations: READ_HINTS,
  },
});

const closerStatement = read({
  ...common,
  id: 'getCloserStatement',
  method: 'GET',
  mount: 'marketplace',
  path: '/closers/{id}/statement',
  summary: "A closer's monthly statement: opening + earned − clawed back − paid = closing",
  query: MonthQuery,
  responses: { 200: CloserStatementSchema },
  errors: [400, 404],
  scope: ['gigs:read', 'admin'],
  read: (service, { id, query, caller }) =>
    service.ledgerQueries.closerStatement(id, (query as Static<typeof MonthQuery>).month, caller),
  view: closerStatementView,
  csv: STATEMENT_CSV,
});

const sellerStatement = read({
  ...common,
  id: 'getSellerStatement',
  method: 'GET',
  mount: 'root',
  path: '/sellers/{id}/statement',
  summary: "A Seller's monthly statement: opening − commissions − platform fees − fees + refunds = closing",
  description: 'In the demo, `none` is the Seller of every deal.',
  query: MonthQuery,
  responses: { 200: SellerStatementSchema },
  errors: [400, 404],
  scope: ['deals:read', 'admin'],
  read: (service, { id, query, caller }) =>
    service.ledgerQueries.sellerStatement(id, (query as Static<typeof MonthQuery>).month, caller),
  view: sellerStatementView,
  csv: STATEMENT_CSV,
});

export const LEDGER_OPERATIONS = [
  refundDeal,
  listRefunds,
  runPayouts,
  listPayouts,
  getBalance,
  listTransfers,
  closerStatement,
  sellerStatement,
];
