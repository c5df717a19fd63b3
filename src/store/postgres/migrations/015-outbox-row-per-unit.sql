-- 015: a unit of work's events are one outbox row. A sell publishes seven to twelve
-- events; each was a row of its own, inserted by the unit and deleted by the sequencer, with its
-- index entry each time. Now a unit's write inserts one row holding its events' columns as
-- arrays, in publishing order, and the sequencer expands them (unnest … WITH ORDINALITY) into
-- the feed, one row per event as before: the feed, its seq and its order (migration 006) are
-- unchanged. A unit that wrote twice (a flush before a read) has two rows with its xid; the
-- sequencer still moves a unit's rows together, in the order of the unit's first position.
-- The data and actors are json[] (not one JSON array): an element is stored as the unit wrote
-- it, so a \u0000 escape in a document is kept as it was, and no JSON is parsed to expand them.
ALTER TABLE event_outbox RENAME TO event_outbox_014;
CREATE TABLE event_outbox (
  position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  types text[] NOT NULL,
  deal_ids text[] NOT NULL,
  ats bigint[] NOT NULL,
  recorded_ats bigint[] NOT NULL,
  data json[] NOT NULL,
  seller_ids text[] NOT NULL,
  closer_ids text[] NOT NULL,
  actors json[] NOT NULL
);
-- What was waiting in the old outbox moves over, a unit's rows as one row (its first position's
-- place in the order), so that nothing committed before the upgrade is lost or reordered.
INSERT INTO event_outbox (xid, types, deal_ids, ats, recorded_ats, data, seller_ids, closer_ids, actors)
SELECT xid, array_agg(type ORDER BY position), array_agg(deal_id ORDER BY position),
  array_agg(at ORDER BY position), array_agg(recorded_at ORDER BY position), array_agg(data ORDER BY position), array_agg(seller_id ORDER BY position),
  array_agg(closer_id ORDER BY position), array_agg(actor ORDER BY position)
FROM event_outbox_014 GROUP BY xid ORDER BY min(position);
DROP TABLE event_outbox_014;
-- A queue: rows live a few milliseconds. Vacuumed by the count of rows it deleted, so that
-- the free space its pages get back is reused (inserts then rarely extend the file).
ALTER TABLE event_outbox SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
  autovacuum_vacuum_cost_delay = 0);
