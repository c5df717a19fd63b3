-- 019: the sequencer finds the rows it moves by their position. Migration 018's move
-- deleted `WHERE xid IN (the batch's xids)`, and the outbox has no index on xid (migration 015
-- made a unit one row), so every run read the whole outbox heap: every row deleted since the
-- last vacuum (autovacuum looks once a minute), a heap that only grew during a burst of sells
-- (12,896 dead rows, 1,700 pages, read every few milliseconds, measured with perf). The batch is
-- now read first, in position order (the primary key); a unit's other rows (a unit that wrote
-- twice) are at higher positions, so the move reads the key from the batch's first position up,
-- which holds only the live rows. Nothing else changes: the lock, then each step in a snapshot
-- of its own (migration 018), the same order, the same seq.
-- It also gives back the caller's principal when it returns, so that a transaction may call it
-- first and go on as itself: a demo reset moves what was committed before it into the feed
-- before it wipes (wipe.ts), since the background run now waits 100 ms after a commit.
CREATE OR REPLACE FUNCTION sequence_events(batch integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  moved_count bigint;
  xids xid8[];
  first_position bigint;
  caller text := coalesce(current_setting('pipeline.principal', true), '');
BEGIN
  PERFORM set_config('pipeline.principal', 'platform', true);
  PERFORM last_seq FROM event_feed FOR UPDATE;
  SELECT array_agg(DISTINCT b.xid), min(b.position) INTO xids, first_position
  FROM (SELECT xid, position FROM event_outbox ORDER BY position LIMIT batch) AS b;
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
