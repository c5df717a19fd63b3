-- 001: the initial schema.
-- Records are stored whole as JSON documents: the store port hands out complete immutable
-- records, so the document is the record. The columns beside `doc` are the ones queries
-- filter, order or lock by. `json`, not `jsonb`: jsonb cannot hold the character U+0000,
-- which free text (a note, a name) may carry, and nothing here queries inside a document.
-- Ids sort with the "C" collation so that byte order is the order.

CREATE TABLE deals (
  id text COLLATE "C" PRIMARY KEY,
  stage text NOT NULL,
  stall_due_at bigint,
  doc json NOT NULL
);
CREATE INDEX deals_stall_due_at ON deals (stall_due_at) WHERE stall_due_at IS NOT NULL;

CREATE TABLE gigs (
  id text COLLATE "C" PRIMARY KEY,
  deal_id text COLLATE "C" NOT NULL,
  status text NOT NULL,
  timer_due_at bigint,
  doc json NOT NULL
);
CREATE INDEX gigs_deal_id ON gigs (deal_id);
CREATE INDEX gigs_status ON gigs (status);
CREATE INDEX gigs_timer_due_at ON gigs (timer_due_at) WHERE timer_due_at IS NOT NULL;

CREATE TABLE closers (
  id text COLLATE "C" PRIMARY KEY,
  doc json NOT NULL
);

-- The payout ledger (D-24): gig_id is the key, so a gig can never be paid twice, whatever
-- races; seq keeps the order lines were appended in.
CREATE TABLE payouts (
  gig_id text COLLATE "C" PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  closer_id text COLLATE "C" NOT NULL,
  deal_id text COLLATE "C" NOT NULL,
  role text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('commission', 'fee')),
  amount_cents bigint NOT NULL,
  at bigint NOT NULL
);
CREATE INDEX payouts_closer_id ON payouts (closer_id, seq);
CREATE INDEX payouts_deal_id ON payouts (deal_id, seq);

-- Append-only: a line once written is never changed or removed. Only the demo reset empties
-- the ledger, with TRUNCATE (which row triggers do not see).
CREATE FUNCTION payouts_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the payout ledger is append-only: % of gig %''s line refused', TG_OP, OLD.gig_id;
END;
$$;
CREATE TRIGGER payouts_append_only BEFORE UPDATE OR DELETE ON payouts
  FOR EACH ROW EXECUTE FUNCTION payouts_append_only();

-- One id counter per kind (D-28), taken with UPDATE … RETURNING inside the unit of work.
CREATE TABLE counters (
  kind text PRIMARY KEY,
  value bigint NOT NULL
);
INSERT INTO counters (kind, value) VALUES ('deal', 0), ('gig', 0), ('closer', 0);

-- Settings every instance shares: the demo clock offset (D-19).
CREATE TABLE settings (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  clock_offset_ms bigint NOT NULL DEFAULT 0
);
INSERT INTO settings DEFAULT VALUES;
