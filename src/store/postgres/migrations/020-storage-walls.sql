-- 020: storage walls (D-77). Row-level security, ENABLEd and FORCEd, on every table that holds a
-- tenant's data, the copies of it included; 011 and 014 covered the records, this covers the rest:
--   event_outbox: a unit's events wait here (migration 015) until the sequencer moves them into
--     the feed: copies of the events, each naming its Seller and closer as `events` does;
--   webhook_deliveries and webhook_attempts: each event as delivered to a webhook, and the log of
--     its attempts (status, error), the webhook owner's own;
--   sellers: a Seller's account (its name), which only it and the operator see (D-54).
-- The policies read the principal as 011's do (D-257 for the queue's and the deliveries'):
-- `platform` (the service's own work: the sequencer, the webhook dispatcher and senders, the
-- timers, the demo) and `operator` see and write every row; an unset or empty principal sees
-- nothing and writes nothing.
--   event_outbox: any set principal adds a unit's row (a closer's move publishes events about the
--     Seller's deal, as `events` takes them); only the platform and the operator read rows and
--     move (delete) them. A tenant reads its events in the feed, never here.
--   webhook_deliveries: only the platform and the operator (the dispatcher and the senders); a
--     principal reads the attempts of its webhooks, never their deliveries.
--   webhook_attempts: a principal reads and writes those of its own webhooks (the subquery reads
--     webhooks under their own policy too).
--   Deleting a webhook still takes its deliveries and attempts with it: ON DELETE CASCADE runs as
--     the tables' owner, past the policies.
--   sellers: a Seller its own row.
-- The queue's and the deliveries' policies name no column: no tenant reads them, and the
-- platform's reads stay plain. A policy is still a filter on every row to the planner, whose
-- selectivity it guesses (a hundredth): with the outbox's, the sequencer's batch (ORDER BY
-- position LIMIT) was planned as a scan of the whole heap and a sort, dead rows and all, where it
-- read the primary key before (test/postgres/sequencer-cost.test.ts caught it). sequence_events
-- (019's, restated below) now plans that one statement with sequential scans off, and sets them
-- back at once. Not the whole function (ALTER FUNCTION … SET): a function with a SET clause cost
-- the server twice its CPU per sell (300-420 µs before, 660-960 µs with it, bench:durable), and
-- its other statements need no such help. Its setting of the principal is undone when it
-- returns, as before (019).
-- The senders' reads of the deliveries keep their partial index under the policy.
-- What holds no tenant's data stays without policies: closers (the marketplace's profiles, which
-- every key lists, D-54), settings (the demo clock), event_feed (the feed's last seq and its
-- counts), webhook_dispatch (the dispatcher's cursor) and schema_migrations.
-- test/postgres/row-security-coverage.test.ts holds every table of the schema to one of the two
-- lists, so that a table added later is classified.
--
-- wipe_tables(): the demo reset's TRUNCATE … RESTART IDENTITY (wipe.ts), run as the tables'
-- owner. Restarting a sequence takes its owner, so a service whose role only serves (D-77:
-- DATABASE_OWNER_URL names the owner) could not reset otherwise; the serving role is given
-- EXECUTE on it (serving-grants.ts, D-256), no TRUNCATE of its own (a TRUNCATE passes every
-- policy).
-- A SECURITY DEFINER function runs with a search_path fixed to its own schema, so that nothing
-- earlier on the caller's path is taken for one of its tables. A table the reset empties, added
-- later, is added here by a migration that replaces the function.

ALTER TABLE event_outbox ENABLE ROW LEVEL SECURITY;
ALTER TABLE event_outbox FORCE ROW LEVEL SECURITY;
ALTER TABLE webhook_deliveries ENABLE ROW LEVEL SECURITY;
ALTER TABLE webhook_deliveries FORCE ROW LEVEL SECURITY;
ALTER TABLE webhook_attempts ENABLE ROW LEVEL SECURITY;
ALTER TABLE webhook_attempts FORCE ROW LEVEL SECURITY;
ALTER TABLE sellers ENABLE ROW LEVEL SECURITY;
ALTER TABLE sellers FORCE ROW LEVEL SECURITY;

CREATE POLICY outbox_read ON event_outbox FOR SELECT
  USING (current_setting('pipeline.principal', true) IN ('platform', 'operator'));
CREATE POLICY outbox_add ON event_outbox FOR INSERT
  WITH CHECK (coalesce(current_setting('pipeline.principal', true), '') <> '');
CREATE POLICY outbox_move ON event_outbox FOR DELETE
  USING (current_setting('pipeline.principal', true) IN ('platform', 'operator'));

CREATE POLICY deliveries_of_platform ON webhook_deliveries
  USING (current_setting('pipeline.principal', true) IN ('platform', 'operator'));

CREATE POLICY attempts_of_principal ON webhook_attempts
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR EXISTS (SELECT 1 FROM webhooks w WHERE w.id = webhook_attempts.webhook_id
      AND w.owner = current_setting('pipeline.principal', true)));

CREATE POLICY sellers_of_principal ON sellers
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR id = current_setting('pipeline.principal', true));

CREATE OR REPLACE FUNCTION sequence_events(batch integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  moved_count bigint;
  xids xid8[];
  first_position bigint;
  caller text := coalesce(current_setting('pipeline.principal', true), '');
  seqscan text := current_setting('enable_seqscan');
BEGIN
  PERFORM set_config('pipeline.principal', 'platform', true);
  PERFORM last_seq FROM event_feed FOR UPDATE;
  -- The batch by position, planned with sequential scans off (this statement alone): under the
  -- outbox's policy the planner would read the whole heap and sort it.
  PERFORM set_config('enable_seqscan', 'off', true);
  SELECT array_agg(DISTINCT b.xid), min(b.position) INTO xids, first_position
  FROM (SELECT xid, position FROM event_outbox ORDER BY position LIMIT batch) AS b;
  PERFORM set_config('enable_seqscan', seqscan, true);
  IF first_position IS NULL THEN
    PERFORM set_config('pipeline.principal', caller, true);
    RETURN 0;
  END IF;
  WITH moved AS (
    DELETE FROM event_outbox WHERE position >= first_position AND xid = ANY (xids)
    RETURNING xid, position, types, deal_ids, ats, recorded_ats, data, seller_ids, closer_ids, actors),
  events_moved AS (
    SELECT min(m.position) OVER (PARTITION BY m.xid) AS first, m.position, e.*
    FROM moved m, unnest(m.types, m.deal_ids, m.ats, m.recorded_ats, m.data, m.seller_ids, m.closer_ids, m.actors)
      WITH ORDINALITY AS e(type, deal_id, at, recorded_at, data, seller_id, closer_id, actor, n)),
  inserted AS (
    INSERT INTO events (seq, type, deal_id, at, recorded_at, data, seller_id, closer_id, actor)
    SELECT (SELECT last_seq FROM event_feed) + row_number() OVER (ORDER BY first, position, n),
      type, deal_id, at, recorded_at, data, seller_id, closer_id, actor FROM events_moved
    RETURNING seq, type)
  UPDATE event_feed SET last_seq = (SELECT max(seq) FROM inserted),
    deals = deals + (SELECT count(*) FROM inserted WHERE type = 'deal.created'),
    closers = closers + (SELECT count(*) FROM inserted WHERE type = 'closer.enrolled')
  WHERE EXISTS (SELECT 1 FROM inserted) RETURNING (SELECT count(*) FROM moved) INTO moved_count;
  PERFORM set_config('pipeline.principal', caller, true);
  RETURN coalesce(moved_count, 0);
END;
$$;

CREATE FUNCTION wipe_tables() RETURNS void LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
  TRUNCATE deals, gigs, closers, payouts, idempotency_keys, event_outbox, events,
    webhooks, webhook_deliveries, webhook_attempts, refused_proposals, proposal_counts RESTART IDENTITY;
END;
$$;
REVOKE ALL ON FUNCTION wipe_tables() FROM PUBLIC;
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION wipe_tables() SET search_path = %I, pg_temp', current_schema());
END;
$$;
