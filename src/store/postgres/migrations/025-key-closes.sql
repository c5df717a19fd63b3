-- 025: a key's closes of a day are rows added, one per unit of work that closes (D-68), where 023
-- kept one row per key and day that every close updated: every close through one key waited on
-- that row's lock until the closing unit committed, so a key's sells ran one at a time (the bench
-- measured the keys-mode sell 26% slower on PostgreSQL). An insert waits on nothing; the usage of
-- a day is the sum of its rows, read only by a unit that checks a daily limit (behind the key's lock).
CREATE TABLE key_closes (
  key_id text NOT NULL,
  day text NOT NULL,
  principal text NOT NULL,
  closes integer NOT NULL,
  closed_value_cents bigint NOT NULL
);
CREATE INDEX key_closes_by_key_and_day ON key_closes (key_id, day);
INSERT INTO key_closes (key_id, day, principal, closes, closed_value_cents)
  SELECT key_id, day, principal, closes, closed_value_cents FROM key_usage;
DROP TABLE key_usage;

ALTER TABLE key_closes ENABLE ROW LEVEL SECURITY;
ALTER TABLE key_closes FORCE ROW LEVEL SECURITY;

CREATE POLICY key_closes_of_principal ON key_closes
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR principal = current_setting('pipeline.principal', true));
