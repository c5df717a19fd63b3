-- 005: webhooks (D-42). A dispatcher follows the feed (`events`) with a cursor and makes a
-- delivery due for every webhook an event matches; senders claim due deliveries with a lease
-- (FOR UPDATE SKIP LOCKED, so that two instances never claim the same one, and no transaction
-- stays open during the HTTP call). A sender that dies leaves its lease to run out: the
-- delivery is claimed again (at least once, never lost). Times are machine epoch ms.
CREATE TABLE webhooks (
  id text COLLATE "C" PRIMARY KEY,
  url text NOT NULL,
  types json, -- NULL: every type
  secret text NOT NULL,
  created_at bigint NOT NULL,
  after_seq bigint NOT NULL
);

-- The last webhook number given (restarted by a reset).
CREATE TABLE webhook_counter (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  value bigint NOT NULL DEFAULT 0
);
INSERT INTO webhook_counter DEFAULT VALUES;

-- The dispatcher's cursor on the feed: the last seq it dispatched. Its row is also the lock
-- that makes one dispatcher run at a time. It starts at the end of the feed as it stands.
CREATE TABLE webhook_dispatch (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  cursor bigint NOT NULL
);
INSERT INTO webhook_dispatch (cursor) SELECT last_seq FROM event_feed;

-- One row per (webhook, event): the event as published, its schedule and its lease.
CREATE TABLE webhook_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id text COLLATE "C" NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  type text NOT NULL,
  at bigint NOT NULL,
  data json NOT NULL,
  dispatched_at bigint NOT NULL,
  attempts integer NOT NULL DEFAULT 0, -- attempts claimed so far: the latest claim's token
  next_attempt_at bigint, -- NULL: done (delivered or given up)
  lease_until bigint,
  UNIQUE (webhook_id, seq)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE next_attempt_at IS NOT NULL;

-- The attempts made, for GET /webhooks/{id}/deliveries.
CREATE TABLE webhook_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id text COLLATE "C" NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  attempt integer NOT NULL,
  at bigint NOT NULL,
  status integer,
  error text,
  next_attempt_at bigint
);
CREATE INDEX webhook_attempts_webhook ON webhook_attempts (webhook_id, id);
