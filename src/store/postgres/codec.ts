// Records ↔ rows. A record is stored whole as its JSON document: JSON.stringify leaves absent
// optional fields absent and keeps numbers exact (cents and epoch milliseconds are integers
// far below 2^53), so what is read back deep-equals what was put. The payout ledger is plain
// columns, since it is the money trail a person may query with SQL.
import type { ActorRef } from '../../domain/access.ts';
import { lostFrom } from '../../domain/insights/cohort.ts';
import { dealFacts } from '../../domain/insights/deal-facts.ts';
import type { ApiKey } from '../../domain/keys.ts';
import type { PublicEventDraft } from '../../domain/public-events.ts';
import type { Closer, Deal, Gig, PayoutLine } from '../../domain/records.ts';
import { STAGES } from '../../domain/stages.ts';

export interface PayoutRow {
  at: string | number;
  closer_id: string;
  gig_id: string;
  deal_id: string;
  role: PayoutLine['role'];
  kind: PayoutLine['kind'];
  amount_cents: string | number;
}

/** int8 columns come back as strings from `pg` and as numbers from PGlite. */
/** The payout ledger's columns, as payoutFromRow reads them. */
export const PAYOUT_COLUMNS = 'at, closer_id, gig_id, deal_id, role, kind, amount_cents';

export function payoutFromRow(row: PayoutRow): PayoutLine {
  return {
    at: Number(row.at),
    closerId: row.closer_id,
    gigId: row.gig_id,
    dealId: row.deal_id,
    role: row.role,
    kind: row.kind,
    amountCents: Number(row.amount_cents),
  };
}

export const payoutParams = (line: PayoutLine) => [
  line.gigId,
  line.closerId,
  line.dealId,
  line.role,
  line.kind,
  line.amountCents,
  line.at,
];

/**
 * The column values of one row of a multi-row upsert, in the table's column order. The owner
 * columns (D-57: seller_id, closer_id) ride in the same upsert: no statement of their own, and so
 * do a deal's facts (D-73, migration 027), after its document.
 */
export const dealValues = (d: Deal) => [
  d.id,
  d.stage,
  d.stallDueAt ?? null,
  d.sellerId ?? null,
  JSON.stringify(d),
  ...factValues(d),
];

/**
 * D-73: the columns of a deal's facts beside its document (migration 027), in factValues' order.
 * Its id, stage and Seller are the deal's own columns.
 */
export const FACT_COLUMNS = [
  'created_at',
  'list_value_cents',
  'industry',
  ...STAGES.map((stage) => `e_${stage}`),
  'lost_from',
  'final_value_cents',
  'close_by',
  'close_key_id',
  'close_closer_id',
  'moves',
] as const;

/** A deal's facts as its row holds them: its moves counted by who made them. */
export function factValues(deal: Deal): unknown[] {
  const facts = dealFacts(deal);
  const moves = new Map<string, { by: string; key?: string; closer?: string; n: number }>();
  for (const move of facts.moves) {
    const at = `${move.by} ${move.keyId ?? ''} ${move.closerId ?? ''}`;
    const counted = moves.get(at) ?? {
      by: move.by,
      ...(move.keyId !== undefined ? { key: move.keyId } : {}),
      ...(move.closerId !== undefined ? { closer: move.closerId } : {}),
      n: 0,
    };
    counted.n++;
    moves.set(at, counted);
  }
  return [
    facts.createdAt,
    facts.listValueCents,
    facts.industry ?? null,
    ...STAGES.map((stage) => facts.enteredAt[stage] ?? null),
    lostFrom(facts) ?? null,
    facts.finalValueCents ?? null,
    facts.close?.by ?? null,
    facts.close?.keyId ?? null,
    facts.close?.closerId ?? null,
    JSON.stringify([...moves.values()]),
  ];
}

export const gigValues = (g: Gig) => [
  g.id,
  g.dealId,
  g.status,
  g.timerDueAt ?? null,
  g.sellerId ?? null,
  g.closerId ?? null,
  JSON.stringify(g),
];

// A closer's gross closed is a bigint (D-24): stored as its digits in a JSON string, read back
// exactly (a document from before holds a number, which BigInt reads as well).
export const closerValues = (c: Closer) => [
  c.id,
  JSON.stringify({ ...c, record: { ...c.record, grossClosedCents: c.record.grossClosedCents.toString() } }),
];

const bigintAsDigits = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

/**
 * An event's data as stored: JSON, with a closer's bigint gross closed as its digits. Without the
 * replacer first: a replacer takes JSON.stringify off its fast path (a sell's seven events cost
 * 8 µs with it, 4 without), and only a closer's record carries a bigint, on which the plain call
 * throws a TypeError and is never half done.
 */
export function eventDataJson(data: unknown): string {
  try {
    return JSON.stringify(data);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return JSON.stringify(data, bigintAsDigits);
  }
}

/** An event's row as read: its audience columns (D-57) only where the query selects them. */
export interface EventRow {
  type: string;
  at: string | number;
  data: unknown;
  seller_id?: string | null;
  closer_id?: string | null;
  actor?: ActorRef | null;
}

/** An event as stored → as published (the enrolled closer's record read back exactly). */
export function eventFromRow(row: EventRow): PublicEventDraft {
  const event = { type: row.type, at: Number(row.at), data: row.data } as PublicEventDraft;
  if (row.seller_id != null) event.sellerId = row.seller_id;
  if (row.closer_id != null) event.closerId = row.closer_id;
  if (row.actor != null) event.actor = row.actor;
  if (event.type === 'closer.enrolled') return { ...event, data: { closer: closerFromDoc(event.data.closer) } };
  return event;
}

/** A key as stored → as kept: its last use is a column of its own (touchKeys, migration 011). */
export function keyFromRow(row: { doc: ApiKey; last_used_at: string | number | null }): ApiKey {
  const { lastUsedAt: _stored, ...key } = row.doc;
  return row.last_used_at === null ? key : { ...key, lastUsedAt: Number(row.last_used_at) };
}

export function closerFromDoc(doc: Closer): Closer {
  return { ...doc, record: { ...doc.record, grossClosedCents: BigInt(doc.record.grossClosedCents) } };
}
