-- 027: a deal's facts (D-73) are columns of its own row, no longer a row of deal_facts beside it.
-- A second row cost every write of a deal a second upsert: a heap row, its key's index and the
-- Seller's, and on a move a new version of each. Measured on PostgreSQL, it took 60–80 µs of the
-- server's CPU from a create or a sell and 120–190 µs from an advance, and 7–30% of their rate.
-- As columns, the facts ride in the deal's own upsert: no index is added, and the deals' own
-- indexes (the Seller's among them) serve the insights. Filled from deal_facts, then dropped.
ALTER TABLE deals
  ADD COLUMN created_at bigint NOT NULL DEFAULT 0,
  ADD COLUMN list_value_cents bigint NOT NULL DEFAULT 0,
  ADD COLUMN industry text,
  ADD COLUMN e_sourced bigint,
  ADD COLUMN e_qualified bigint,
  ADD COLUMN e_meeting bigint,
  ADD COLUMN e_proposal bigint,
  ADD COLUMN e_negotiation bigint,
  ADD COLUMN e_closed_won bigint,
  ADD COLUMN e_closed_lost bigint,
  ADD COLUMN lost_from text,
  ADD COLUMN final_value_cents bigint,
  ADD COLUMN close_by text,
  ADD COLUMN close_key_id text,
  ADD COLUMN close_closer_id text,
  -- [{by, key, closer, n}]: the accepted moves, counted by who made them.
  ADD COLUMN moves jsonb NOT NULL DEFAULT '[]';

UPDATE deals d SET
  created_at = f.created_at, list_value_cents = f.list_value_cents, industry = f.industry,
  e_sourced = f.e_sourced, e_qualified = f.e_qualified, e_meeting = f.e_meeting,
  e_proposal = f.e_proposal, e_negotiation = f.e_negotiation, e_closed_won = f.e_closed_won,
  e_closed_lost = f.e_closed_lost, lost_from = f.lost_from, final_value_cents = f.final_value_cents,
  close_by = f.close_by, close_key_id = f.close_key_id, close_closer_id = f.close_closer_id, moves = f.moves
FROM deal_facts f WHERE f.id = d.id;

-- Every write gives every column: no default stands in for a fact.
ALTER TABLE deals
  ALTER COLUMN created_at DROP DEFAULT,
  ALTER COLUMN list_value_cents DROP DEFAULT,
  ALTER COLUMN moves DROP DEFAULT;

DROP TABLE deal_facts;

CREATE OR REPLACE FUNCTION wipe_tables() RETURNS void LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
  TRUNCATE deals, gigs, closers, payouts, idempotency_keys, event_outbox, events,
    webhooks, webhook_deliveries, webhook_attempts, refused_proposals, proposal_counts, approvals
    RESTART IDENTITY;
END;
$$;
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION wipe_tables() SET search_path = %I, pg_temp', current_schema());
END;
$$;
