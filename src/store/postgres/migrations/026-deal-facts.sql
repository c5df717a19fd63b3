-- 026: what the insights read of each deal (D-73), beside its document: when it entered each
-- stage, how it closed and who closed it, and the moves people and agents made on it, counted by
-- who made them. Written with the deal in the unit's write (sql-unit-of-work.ts), from the same
-- record (src/domain/insights/deal-facts.ts), so that an insight adds up narrow rows in SQL
-- instead of reading every deal's document and activity.
CREATE TABLE deal_facts (
  id text COLLATE "C" PRIMARY KEY,
  seller_id text COLLATE "C",
  created_at bigint NOT NULL,
  list_value_cents bigint NOT NULL,
  industry text,
  stage text NOT NULL,
  e_sourced bigint,
  e_qualified bigint,
  e_meeting bigint,
  e_proposal bigint,
  e_negotiation bigint,
  e_closed_won bigint,
  e_closed_lost bigint,
  lost_from text,
  final_value_cents bigint,
  close_by text,
  close_key_id text,
  close_closer_id text,
  -- [{by, key, closer, n}]: the accepted moves, counted by who made them.
  moves jsonb NOT NULL
);
CREATE INDEX deal_facts_by_seller ON deal_facts (seller_id, created_at);

ALTER TABLE deal_facts ENABLE ROW LEVEL SECURITY;
ALTER TABLE deal_facts FORCE ROW LEVEL SECURITY;

-- As the deals' own policy (migration 011): a closer sees the facts of the deals of its gigs.
CREATE POLICY deal_facts_of_principal ON deal_facts
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR seller_id = current_setting('pipeline.principal', true)
    OR (current_setting('pipeline.principal', true) LIKE 'closer\_%' AND EXISTS (
      SELECT 1 FROM gigs g WHERE g.deal_id = deal_facts.id
        AND (g.status = 'open' OR g.closer_id = current_setting('pipeline.principal', true)))));

-- The deals kept before: their facts from their documents, as dealFacts reads them. An entry at a
-- stage other than the one before it is the move to that stage (the first entry is the creation).
WITH entries AS (
  SELECT d.id, e.n, e.entry, e.entry->>'stage' AS stage,
    lag(e.entry->>'stage') OVER (PARTITION BY d.id ORDER BY e.n) AS before
  FROM deals d, json_array_elements(d.doc->'activity') WITH ORDINALITY AS e(entry, n)
),
moved AS (SELECT * FROM entries WHERE before IS NULL OR stage <> before),
entered AS (
  SELECT id,
    min((entry->>'at')::bigint) FILTER (WHERE n = 1) AS created_at,
    min((entry->>'at')::bigint) FILTER (WHERE stage = 'sourced') AS e_sourced,
    min((entry->>'at')::bigint) FILTER (WHERE stage = 'qualified') AS e_qualified,
    min((entry->>'at')::bigint) FILTER (WHERE stage = 'meeting') AS e_meeting,
    min((entry->>'at')::bigint) FILTER (WHERE stage = 'proposal') AS e_proposal,
    min((entry->>'at')::bigint) FILTER (WHERE stage = 'negotiation') AS e_negotiation,
    min((entry->>'at')::bigint) FILTER (WHERE stage = 'closed_won') AS e_closed_won,
    min((entry->>'at')::bigint) FILTER (WHERE stage = 'closed_lost') AS e_closed_lost
  FROM moved GROUP BY id
),
closes AS (
  SELECT id, entry->>'by' AS close_by, entry->'actor'->>'keyId' AS close_key_id, entry->>'closerId' AS close_closer_id
  FROM moved WHERE before IS NOT NULL AND stage IN ('closed_won', 'closed_lost') AND entry->>'by' IN ('agent', 'human')
),
moves AS (
  SELECT id, jsonb_agg(jsonb_strip_nulls(jsonb_build_object('by', by, 'key', key, 'closer', closer, 'n', n))) AS moves
  FROM (
    SELECT id, entry->>'by' AS by, entry->'actor'->>'keyId' AS key, entry->>'closerId' AS closer, count(*) AS n
    FROM moved WHERE before IS NOT NULL AND entry->>'by' IN ('agent', 'human') GROUP BY 1, 2, 3, 4
  ) counted GROUP BY id
)
INSERT INTO deal_facts
SELECT d.id, d.seller_id, coalesce(e.created_at, (d.doc->>'lastActedAt')::bigint), (d.doc->>'listValueCents')::bigint,
  d.doc->'account'->>'industry', d.stage,
  e.e_sourced, e.e_qualified, e.e_meeting, e.e_proposal, e.e_negotiation, e.e_closed_won, e.e_closed_lost,
  CASE WHEN e.e_closed_lost IS NOT NULL THEN
    CASE WHEN e.e_negotiation IS NOT NULL THEN 'negotiation' WHEN e.e_proposal IS NOT NULL THEN 'proposal'
      WHEN e.e_meeting IS NOT NULL THEN 'meeting' WHEN e.e_qualified IS NOT NULL THEN 'qualified' ELSE 'sourced' END
  END,
  (d.doc->>'finalValueCents')::bigint, c.close_by, c.close_key_id, c.close_closer_id, coalesce(m.moves, '[]'::jsonb)
FROM deals d
LEFT JOIN entered e ON e.id = d.id
LEFT JOIN closes c ON c.id = d.id
LEFT JOIN moves m ON m.id = d.id;

-- The demo reset deletes the facts with their deals.
CREATE OR REPLACE FUNCTION wipe_tables() RETURNS void LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
  TRUNCATE deals, gigs, closers, payouts, idempotency_keys, event_outbox, events,
    webhooks, webhook_deliveries, webhook_attempts, refused_proposals, proposal_counts, approvals,
    deal_facts RESTART IDENTITY;
END;
$$;
REVOKE ALL ON FUNCTION wipe_tables() FROM PUBLIC;
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION wipe_tables() SET search_path = %I, pg_temp', current_schema());
END;
$$;
