-- 029: the tables that are queues keep their empty pages (D-284). A table whose rows are all
-- deleted soon after they are inserted (the outbox the sequencer drains every 100 ms, a key's
-- closes folded into one row per day, the earnings a release takes out of hold) often ends in
-- empty pages, and autovacuum then truncates them: for that it takes the table's
-- ACCESS EXCLUSIVE lock, and every insert into the table queues behind it for up to its
-- 20 ms lock-wait check (CI once saw three claims waiting on event_outbox's lock). With
-- vacuum_truncate off, autovacuum still frees the dead rows for reuse but never shrinks the file,
-- so no writer waits for it; the file stays the size of the queue's busiest moment.
ALTER TABLE event_outbox SET (vacuum_truncate = false);
ALTER TABLE key_closes SET (vacuum_truncate = false);
ALTER TABLE held_earnings SET (vacuum_truncate = false);
