-- 003: answers stored under idempotency keys (D-37), written in the unit of work of the request
-- they answer. `body` is the answer's bytes as sent; stored_at is machine time (epoch ms), so
-- keys older than 24 hours are purged by the platform timers.
CREATE TABLE idempotency_keys (
  key text COLLATE "C" PRIMARY KEY,
  fingerprint text NOT NULL,
  status integer NOT NULL,
  body text NOT NULL,
  location text,
  stored_at bigint NOT NULL
);
CREATE INDEX idempotency_keys_stored_at ON idempotency_keys (stored_at);
