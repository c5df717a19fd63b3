// Records ↔ rows. A record is stored whole as its JSON document: JSON.stringify leaves absent
// optional fields absent and keeps numbers exact (cents and epoch milliseconds are integers
// far below 2^53), so what is read back deep-equals what was put. The payout ledger is plain
// columns, since it is the money trail a person may query with SQL.
import type { PublicEventDraft } from '../../domain/public-events.ts';
import type { Closer, Deal, Gig, PayoutLine } from '../../domain/records.ts';

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

/** The column values of one row of a multi-row upsert, in the table's column order. */
export const dealValues = (d: Deal) => [d.id, d.stage, d.stallDueAt ?? null, JSON.stringify(d)];

export const gigValues = (g: Gig) => [g.id, g.dealId, g.status, g.timerDueAt ?? null, JSON.stringify(g)];

// A closer's gross closed is a bigint (D-24): stored as its digits in a JSON string, read back
// exactly (a document from before holds a number, which BigInt reads as well).
export const closerValues = (c: Closer) => [
  c.id,
  JSON.stringify({ ...c, record: { ...c.record, grossClosedCents: c.record.grossClosedCents.toString() } }),
];

/** An event's data as stored: JSON, with a closer's bigint gross closed as its digits. */
export const eventDataJson = (data: unknown) =>
  JSON.stringify(data, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));

/** An event as stored → as published (the enrolled closer's record read back exactly). */
export function eventFromRow(row: { type: string; at: string | number; data: unknown }): PublicEventDraft {
  const event = { type: row.type, at: Number(row.at), data: row.data } as PublicEventDraft;
  if (event.type === 'closer.enrolled') return { ...event, data: { closer: closerFromDoc(event.data.closer) } };
  return event;
}

export function closerFromDoc(doc: Closer): Closer {
  return { ...doc, record: { ...doc.record, grossClosedCents: BigInt(doc.record.grossClosedCents) } };
}
