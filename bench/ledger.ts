// The bench's row of D-82: a closer's monthly statement when the closer has 10,000 transfers in
// that month, read by the operator on PostgreSQL. The closer is enrolled through the API; its
// transfers are written in SQL (earnings, their releases, payouts and a few reversals, a minute
// apart over the last week) as the service books them. The goal is p95 ≤ 300 ms.
import type autocannon from 'autocannon';
import pg from 'pg';
import { postgresOwnerUrl, postgresUrl } from './options.ts';
import { dealBody, inParallel, JSON_HEADERS, OPERATOR_HEADERS, PREFIX, post } from './setup.ts';

export const STATEMENT_TRANSFERS = 10_000;
/** The closes a human-close row prepares, at most. */
const CLOSES = 4000;
/** The closers the closes are spread over. */
const CLOSERS = 200;
export const HUMAN_CLOSE = 'POST /closers/gigs/{id}/advance to closed_won (commission and fee booked)';
const MINUTE = 60_000;

/** The closer's id, after its transfers were written. */
async function seeded(url: string, count: number): Promise<string> {
  const closer = await post(
    `${url}/closers/closers`,
    JSON.stringify({ name: 'Bench Statement Closer', industries: ['saas'] }),
    OPERATOR_HEADERS,
  );
  const client = new pg.Client({ connectionString: postgresOwnerUrl() ?? postgresUrl() });
  await client.connect();
  try {
    await client.query("SET pipeline.principal = 'platform'");
    // Every fourth transfer of each kind in turn: an earning, its release, a payout, a reversal.
    await client.query(
      `INSERT INTO transfers (key, at, debit, credit, amount_cents, kind, closer_id, seller_id, deal_id)
       SELECT 'bench:' || $1 || ':' || i, $2::bigint - i::bigint * ${MINUTE},
         CASE i % 4 WHEN 0 THEN 'seller:none' WHEN 1 THEN 'closer:' || $1 || ':pending'
           WHEN 2 THEN 'closer:' || $1 || ':available' ELSE 'closer:' || $1 || ':available' END,
         CASE i % 4 WHEN 0 THEN 'closer:' || $1 || ':pending' WHEN 1 THEN 'closer:' || $1 || ':available'
           WHEN 2 THEN 'closer:' || $1 || ':paid' ELSE 'seller:none' END,
         1000 + i % 997,
         CASE i % 4 WHEN 0 THEN 'commission' WHEN 1 THEN 'release' WHEN 2 THEN 'payout' ELSE 'reversal' END,
         $1, 'none', 'deal_' || (7000000 + i / 4)
       FROM generate_series(1, $3::int) i`,
      [closer.id, Date.now(), count],
    );
    await client.query('ANALYZE transfers');
  } finally {
    await client.end();
  }
  return closer.id;
}

/** GET the closer's statement of the month its transfers are in, as the operator. */
export async function statementReads(url: string): Promise<Partial<autocannon.Options>> {
  const closerId = await seeded(url, STATEMENT_TRANSFERS);
  const month = new Date().toISOString().slice(0, 7);
  return {
    requests: [
      { method: 'GET', path: `/closers/closers/${closerId}/statement?month=${month}`, headers: OPERATOR_HEADERS },
    ],
  };
}

/**
 * A closer's closes won: claimed closer gigs moved to negotiation (a human-closer deal escalates at
 * meeting), each closed once at its list value by the measured request.
 */
export async function humanCloses(url: string, expected: number): Promise<Partial<autocannon.Options>> {
  const mandate = { staffing: { closer: 'human' } };
  // A close answers its closer with the whole payouts ledger (the specification's shape), so the
  // closes are spread over many closers: the row measures a close, not a closer's growing ledger.
  const closers = await inParallel(CLOSERS, async (i) => {
    const body = JSON.stringify({ name: `Bench Closer ${i}`, industries: ['saas'] });
    return (await post(`${url}/closers/closers`, body)).id as string;
  });
  // Each close takes four requests to set up: at most CLOSES of them, so that the row's setup
  // stays within a minute; the row then ends when they are all closed, within its duration or not.
  const gigs = await inParallel(Math.min(expected, CLOSES), async (i) => {
    const gig = (await post(`${url}${PREFIX}/sell`, dealBody(i, mandate))).gig.id;
    await post(`${url}/closers/gigs/${gig}/claim`, JSON.stringify({ closerId: closers[i % CLOSERS] }));
    for (const advanceTo of ['proposal', 'negotiation'])
      await post(`${url}/closers/gigs/${gig}/advance`, JSON.stringify({ advanceTo }));
    return gig;
  });
  let n = 0;
  return {
    // Never more closes than gigs to close (a second close is refused), however fast.
    amount: gigs.length,
    requests: [
      {
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify({ advanceTo: 'closed_won', valueUsd: 50_000 }),
        setupRequest: (request: autocannon.Request) => {
          request.path = `/closers/gigs/${gigs[n++ % gigs.length]}/advance`;
          return request;
        },
      },
    ],
  };
}
