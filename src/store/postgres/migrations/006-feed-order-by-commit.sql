-- 006: an event enters the feed as soon as its transaction has committed (D-41).
-- 004 held every event back until all transactions older than its own had ended (xid below the
-- snapshot's xmin). xmin is the whole server's, so any open transaction, even in another
-- database, delayed the feed, and a client could write and then not find its own event.
-- That wait bought nothing: seq is given by the sequencer when it moves rows, under the feed
-- row's lock, never at insert, so a row that commits late still gets a seq above every one
-- already readable. The sequencer now moves every committed outbox row in position order.
-- Causal order holds: a unit that saw another's effect (waited on its lock or read its committed
-- rows) inserts its outbox rows after that one committed, so at higher positions, and any
-- snapshot in which it has committed shows the earlier one committed too.
DROP INDEX event_outbox_order;
ALTER TABLE event_outbox DROP COLUMN xid;
