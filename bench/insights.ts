// The bench's rows of D-73: each insight read by a Seller's key with 100,000 deals of that Seller
// on PostgreSQL (a won, an open and a lost deal made through the API, then their rows copied in
// SQL, their stage times spread over the last 70 days so that the default range holds them all).
// Two connections, as a few people reading dashboards would; the goal is each answer's p95 ≤ 300 ms
// (the table's p97.5 bounds it from above).
import type autocannon from 'autocannon';
import pg from 'pg';
import { STAGES } from '../src/domain/stages.ts';
import { FACT_COLUMNS } from '../src/store/postgres/codec.ts';
import { postgresOwnerUrl, postgresUrl } from './options.ts';
import { dealBody, JSON_HEADERS, OPERATOR_HEADERS, PREFIX, post } from './setup.ts';

export const INSIGHT_DEALS = 100_000;
const MINUTE = 60_000;

/** A Seller with its key, three deals made through the API, and `count` copies of them in SQL. */
async function seeded(url: string, count: number): Promise<string> {
  const seller = await post(`${url}/sellers`, JSON.stringify({ name: 'Bench Insights Seller' }), OPERATOR_HEADERS);
  const key = (await post(`${url}/keys`, JSON.stringify({ name: 'insights', principal: seller.id }), OPERATOR_HEADERS))
    .key;
  const headers = { ...JSON_HEADERS, authorization: `Bearer ${key}` };
  await post(`${url}${PREFIX}/sell`, dealBody(1), headers);
  await post(`${url}${PREFIX}/deals`, dealBody(2), headers);
  const lost = await post(`${url}${PREFIX}/deals`, dealBody(3), headers);
  await post(`${url}${PREFIX}/deals/${lost.id}/advance`, JSON.stringify({ advanceTo: 'closed_lost' }), headers);
  const client = new pg.Client({ connectionString: postgresOwnerUrl() ?? postgresUrl() });
  await client.connect();
  try {
    await client.query("SET pipeline.principal = 'platform'");
    // Each copy shifted back i minutes, its stage times with it: the same durations, spread out.
    const shifted = (column: string) =>
      `CASE WHEN t.${column} IS NULL THEN NULL ELSE t.${column} - i::bigint * ${MINUTE} END`;
    // The copies keep their originals' documents (the insights never read one, but a row as wide
    // as a real deal's is what an insight scans).
    await client.query(
      `WITH t AS (SELECT row_number() OVER (ORDER BY id) - 1 AS n, * FROM deals WHERE seller_id = $1),
       copies AS (SELECT i, 'deal_' || (5000000 + i) AS id FROM generate_series(1, $2::int) i)
       INSERT INTO deals (id, stage, stall_due_at, seller_id, doc, ${FACT_COLUMNS.join(', ')})
       SELECT c.id, t.stage, t.stall_due_at, t.seller_id, t.doc, t.created_at - i::bigint * ${MINUTE},
         t.list_value_cents, t.industry,
         ${STAGES.map((stage) => shifted(`e_${stage}`)).join(', ')},
         t.lost_from, t.final_value_cents, t.close_by, t.close_key_id, t.close_closer_id, t.moves
       FROM copies c JOIN t ON t.n = c.i % 3`,
      [seller.id, count],
    );
    await client.query('ANALYZE deals');
  } finally {
    await client.end();
  }
  return key;
}

/** GET the insight through the seeded Seller's key. */
export async function insightReads(url: string, path: string): Promise<Partial<autocannon.Options>> {
  const key = await seeded(url, INSIGHT_DEALS);
  return { requests: [{ method: 'GET', path, headers: { authorization: `Bearer ${key}` } }] };
}
