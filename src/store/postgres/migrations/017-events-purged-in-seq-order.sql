-- 017: the feed keeps only the indexes it is read by. The purge of old events
-- (D-170, D-248) read events_recorded_at, an index entry every event paid for on insert to
-- serve one statement a minute. It now forgets the feed's oldest events in seq order, as the
-- memory store does: those before the first event still within retention (the primary key
-- finds it, walking from the oldest), so an event out of its time order (a unit that committed
-- after a later one) waits for the events before it. Every other index of events is one a
-- page of the feed is read by: seq, type, deal, Seller, closer (D-41, D-57, D-58).
DROP INDEX events_recorded_at;
