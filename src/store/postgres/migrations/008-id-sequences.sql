-- 008: ids from sequences, not counter rows (D-28 revised). Every creating transaction used to
-- lock the one counter row of its kind until it committed, so all creates of all instances
-- queued behind it. A sequence hands out numbers without a lock held to commit; a number taken
-- by a unit of work that then fails is lost (a gap), never reused. Numbers are taken only once
-- the gate has accepted, so a refusal still consumes none.
--
-- Each sequence is owned by its table's id column, so the demo reset's
-- `TRUNCATE … RESTART IDENTITY` restarts it in the reset's own transaction: a create that took a
-- number before the reset holds the sequence until it commits (the reset waits, then truncates
-- its deal), and one that asks after the reset began waits for the reset to commit and gets 1.
CREATE SEQUENCE deal_numbers OWNED BY deals.id;
CREATE SEQUENCE gig_numbers OWNED BY gigs.id;
CREATE SEQUENCE closer_numbers OWNED BY closers.id;
CREATE SEQUENCE webhook_numbers OWNED BY webhooks.id;
-- Numbers given so far carry on (setval(…, n, false) makes n the next one).
SELECT setval('deal_numbers', value + 1, false) FROM counters WHERE kind = 'deal';
SELECT setval('gig_numbers', value + 1, false) FROM counters WHERE kind = 'gig';
SELECT setval('closer_numbers', value + 1, false) FROM counters WHERE kind = 'closer';
SELECT setval('webhook_numbers', value + 1, false) FROM webhook_counter;
DROP TABLE counters;
DROP TABLE webhook_counter;
