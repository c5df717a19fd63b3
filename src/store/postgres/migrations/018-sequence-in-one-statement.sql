-- 018: the sequencer's run is one statement (D-166). It was BEGIN, the feed row's lock, the
-- move and COMMIT, four statements every few commits; it is now this function, called alone,
-- outside any transaction of the caller's. Inside it the statements are as before, and in the
-- same order: a VOLATILE function takes a fresh snapshot for each statement it runs (READ
-- COMMITTED), so the move's snapshot is taken after the feed row's lock is held, after the last
-- run committed (migration 006 says why this order can never skip a reader). It runs as the
-- platform (D-57) for its own transaction only, whatever principal holds the connection.
CREATE FUNCTION sequence_events(batch integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  moved_count bigint;
BEGIN
  PERFORM set_config('pipeline.principal', 'platform', true);
  PERFORM last_seq FROM event_feed FOR UPDATE;
  WITH moved AS (
    DELETE FROM event_outbox WHERE xid IN (
      SELECT xid FROM event_outbox ORDER BY position LIMIT batch)
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
  RETURN coalesce(moved_count, 0);
END;
$$;
