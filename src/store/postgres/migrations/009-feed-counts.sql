-- 009: the record counts of /health, without counting rows. `count(*)` on deals read the whole
-- table (64 to 77 ms at a million deals) and a counter row every create updated would be the
-- hot row migration 008 removed. Every deal and closer enters with one event (deal.created,
-- closer.enrolled) and the event sequencer, which already runs alone under the feed row's lock,
-- adds the ones it moves to these columns; the rows still in the outbox (a few milliseconds'
-- worth) are counted at read time. A reset sets them to zero in its transaction.
ALTER TABLE event_feed ADD COLUMN deals bigint NOT NULL DEFAULT 0;
ALTER TABLE event_feed ADD COLUMN closers bigint NOT NULL DEFAULT 0;
UPDATE event_feed SET
  deals = (SELECT count(*) FROM deals) - (SELECT count(*) FROM event_outbox WHERE type = 'deal.created'),
  closers = (SELECT count(*) FROM closers) - (SELECT count(*) FROM event_outbox WHERE type = 'closer.enrolled');
