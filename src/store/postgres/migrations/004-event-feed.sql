-- 004: the event feed (D-40, D-41).
-- (Migration 006 replaced the xid rule below: the sequencer moves every committed row.)
-- A unit of work publishes its events into event_outbox, in its own transaction, with that
-- transaction's id (xid). An event enters the feed (`events`, where it gets its seq) only once
-- every transaction that began before its own has ended: the sequencer moves outbox rows whose
-- xid is below the xmin of its snapshot, in (xid, position) order, under the feed row's lock.
-- So seq order is the order of the sequencer's runs, and no event can ever enter the feed below
-- a seq a reader may already have read (Emmett's PostgreSQL event store reads below xmin in the
-- same way; here the cursor is a plain seq as well). Writers never touch a shared row.
CREATE TABLE event_outbox (
  position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  type text NOT NULL,
  deal_id text COLLATE "C",
  at bigint NOT NULL,
  recorded_at bigint NOT NULL,
  data json NOT NULL
);
CREATE INDEX event_outbox_order ON event_outbox (xid, position);

-- The feed itself: seq is its order. recorded_at is machine time (EVENT_RETENTION_HOURS).
CREATE TABLE events (
  seq bigint PRIMARY KEY,
  type text NOT NULL,
  deal_id text COLLATE "C",
  at bigint NOT NULL,
  recorded_at bigint NOT NULL,
  data json NOT NULL
);
CREATE INDEX events_type_seq ON events (type, seq);
CREATE INDEX events_deal_id_seq ON events (deal_id, seq) WHERE deal_id IS NOT NULL;
CREATE INDEX events_recorded_at ON events (recorded_at);

-- The last seq given: a reset empties the feed but never restarts it (a reader's cursor stays
-- valid). Its row is also the sequencer's lock.
CREATE TABLE event_feed (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  last_seq bigint NOT NULL DEFAULT 0
);
INSERT INTO event_feed DEFAULT VALUES;
