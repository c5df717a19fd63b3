-- 028: the ledger (D-79 to D-82). transfers: the books, a row per transfer, never updated or
-- deleted (the trigger refuses both; only the demo reset empties them, with TRUNCATE). A transfer's
-- number is taken from its sequence as the row is added (txn_NNNN is made of it), so a close's
-- settlement is rows of the unit's one write; `key` is unique, so no line is ever written twice
-- (a release of an earning, a refund's reversal, a settlement's line), however writers race.
-- held_earnings: the earnings still held (pending), kept by a trigger on transfers: the timers read
-- what falls due from it, never the whole ledger. refunds and closer_payouts: the records that
-- caused a refund's and a payout's transfers, their documents in rows. Each row names the Seller
-- and the closer it concerns, and row-level security (FORCEd, D-77) shows a tenant its own only.
CREATE SEQUENCE transfer_numbers;
CREATE TABLE transfers (
  number bigint PRIMARY KEY DEFAULT nextval('transfer_numbers'),
  key text COLLATE "C" NOT NULL UNIQUE,
  at bigint NOT NULL,
  debit text COLLATE "C" NOT NULL,
  credit text COLLATE "C" NOT NULL,
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  kind text NOT NULL CHECK (kind IN ('commission', 'fee', 'platform_fee', 'release', 'payout', 'reversal')),
  deal_id text COLLATE "C",
  gig_id text COLLATE "C",
  payout_id text COLLATE "C",
  refund_id text COLLATE "C",
  reverses bigint,
  releases bigint,
  seller_id text COLLATE "C",
  closer_id text COLLATE "C",
  CHECK (debit <> credit)
);
ALTER SEQUENCE transfer_numbers OWNED BY transfers.number;
-- A balance as of a time: an account's lines by time, on either side.
CREATE INDEX transfers_by_debit ON transfers (debit, at);
CREATE INDEX transfers_by_credit ON transfers (credit, at);
CREATE INDEX transfers_by_deal ON transfers (deal_id) WHERE deal_id IS NOT NULL;
-- An earning is released once.
CREATE UNIQUE INDEX transfers_release_once ON transfers (releases) WHERE releases IS NOT NULL;

CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the ledger is append-only: % on % refused', TG_OP, TG_TABLE_NAME;
END;
$$;
CREATE TRIGGER transfers_append_only BEFORE UPDATE OR DELETE ON transfers
  FOR EACH ROW EXECUTE FUNCTION ledger_append_only();

CREATE TABLE held_earnings (
  number bigint PRIMARY KEY,
  at bigint NOT NULL,
  seller_id text COLLATE "C",
  closer_id text COLLATE "C"
);
CREATE INDEX held_earnings_by_time ON held_earnings (at, number);

-- An earning enters held_earnings as it is booked and leaves it with its release, or with the
-- refund's reversal that takes the last of it from pending. A platform fee fires nothing.
CREATE FUNCTION keep_held_earnings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.kind IN ('commission', 'fee') THEN
    INSERT INTO held_earnings (number, at, seller_id, closer_id) VALUES (NEW.number, NEW.at, NEW.seller_id, NEW.closer_id);
  ELSIF NEW.kind = 'release' THEN
    DELETE FROM held_earnings WHERE number = NEW.releases;
  ELSE
    DELETE FROM held_earnings h WHERE h.number = NEW.reverses
      AND (SELECT e.amount_cents FROM transfers e WHERE e.number = NEW.reverses)
        <= (SELECT sum(r.amount_cents) FROM transfers r WHERE r.reverses = NEW.reverses AND r.debit = NEW.debit);
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER transfers_keep_held AFTER INSERT ON transfers FOR EACH ROW
  WHEN (NEW.kind IN ('commission', 'fee', 'release') OR (NEW.kind = 'reversal' AND NEW.debit LIKE '%:pending'))
  EXECUTE FUNCTION keep_held_earnings();

CREATE TABLE refunds (
  number bigint PRIMARY KEY,
  deal_id text COLLATE "C" NOT NULL,
  seller_id text COLLATE "C",
  doc json NOT NULL
);
CREATE SEQUENCE refund_numbers OWNED BY refunds.number;
CREATE INDEX refunds_of_deal ON refunds (deal_id, number);
CREATE TRIGGER refunds_append_only BEFORE UPDATE OR DELETE ON refunds
  FOR EACH ROW EXECUTE FUNCTION ledger_append_only();

CREATE TABLE closer_payouts (
  number bigint PRIMARY KEY,
  closer_id text COLLATE "C" NOT NULL,
  doc json NOT NULL
);
CREATE SEQUENCE closer_payout_numbers OWNED BY closer_payouts.number;
CREATE INDEX closer_payouts_of_closer ON closer_payouts (closer_id, number);
CREATE TRIGGER closer_payouts_append_only BEFORE UPDATE OR DELETE ON closer_payouts
  FOR EACH ROW EXECUTE FUNCTION ledger_append_only();

ALTER TABLE transfers ENABLE ROW LEVEL SECURITY;
ALTER TABLE transfers FORCE ROW LEVEL SECURITY;
ALTER TABLE held_earnings ENABLE ROW LEVEL SECURITY;
ALTER TABLE held_earnings FORCE ROW LEVEL SECURITY;
ALTER TABLE refunds ENABLE ROW LEVEL SECURITY;
ALTER TABLE refunds FORCE ROW LEVEL SECURITY;
ALTER TABLE closer_payouts ENABLE ROW LEVEL SECURITY;
ALTER TABLE closer_payouts FORCE ROW LEVEL SECURITY;

-- A Seller its lines, a closer its lines (D-54, D-82); the platform and the operator every one.
CREATE POLICY transfers_of_principal ON transfers
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR seller_id = current_setting('pipeline.principal', true)
    OR closer_id = current_setting('pipeline.principal', true));
CREATE POLICY held_earnings_of_principal ON held_earnings
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR seller_id = current_setting('pipeline.principal', true)
    OR closer_id = current_setting('pipeline.principal', true));
-- A refund: its Seller, and a closer with a gig of its deal (the deal's settlement shows refundedUsd).
CREATE POLICY refunds_of_principal ON refunds
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR seller_id = current_setting('pipeline.principal', true)
    OR (current_setting('pipeline.principal', true) LIKE 'closer\_%' AND EXISTS (
      SELECT 1 FROM gigs g WHERE g.deal_id = refunds.deal_id
        AND g.closer_id = current_setting('pipeline.principal', true))));
CREATE POLICY closer_payouts_of_principal ON closer_payouts
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR closer_id = current_setting('pipeline.principal', true));

-- A refund's and a payout's number is taken as an approval's is (023), its table locked first.
CREATE OR REPLACE FUNCTION take_number(kind text) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  CASE kind
    WHEN 'deal' THEN
      LOCK TABLE deals IN ROW EXCLUSIVE MODE;
      RETURN nextval('deal_numbers');
    WHEN 'gig' THEN
      LOCK TABLE gigs IN ROW EXCLUSIVE MODE;
      RETURN nextval('gig_numbers');
    WHEN 'closer' THEN
      LOCK TABLE closers IN ROW EXCLUSIVE MODE;
      RETURN nextval('closer_numbers');
    WHEN 'webhook' THEN
      LOCK TABLE webhooks IN ROW EXCLUSIVE MODE;
      RETURN nextval('webhook_numbers');
    WHEN 'prop' THEN
      LOCK TABLE refused_proposals IN ROW EXCLUSIVE MODE;
      RETURN nextval('proposal_numbers');
    WHEN 'apr' THEN
      LOCK TABLE approvals IN ROW EXCLUSIVE MODE;
      RETURN nextval('approval_numbers');
    WHEN 'rfd' THEN
      LOCK TABLE refunds IN ROW EXCLUSIVE MODE;
      RETURN nextval('refund_numbers');
    WHEN 'po' THEN
      LOCK TABLE closer_payouts IN ROW EXCLUSIVE MODE;
      RETURN nextval('closer_payout_numbers');
  END CASE;
END
$$;

-- The demo reset empties the ledger with the records it books (and restarts its numbers).
CREATE OR REPLACE FUNCTION wipe_tables() RETURNS void LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
  TRUNCATE deals, gigs, closers, payouts, idempotency_keys, event_outbox, events,
    webhooks, webhook_deliveries, webhook_attempts, refused_proposals, proposal_counts, approvals,
    transfers, held_earnings, refunds, closer_payouts
    RESTART IDENTITY;
END;
$$;
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION wipe_tables() SET search_path = %I, pg_temp', current_schema());
END;
$$;

-- The books of what was settled before this migration, as the service would have booked them:
-- each won deal's platform fee (5%, half-up) when it entered closed_won, and each payouts line's
-- earning when it was posted, in time order. Earnings enter held_earnings (the trigger), so the
-- timers release those past their hold as they would any.
INSERT INTO transfers (key, at, debit, credit, amount_cents, kind, deal_id, gig_id, seller_id, closer_id)
SELECT key, at, debit, credit, amount_cents, kind, deal_id, gig_id, seller_id, closer_id FROM (
  SELECT 'platform_fee:' || d.id AS key, coalesce(d.e_closed_won, (d.doc->>'lastActedAt')::bigint) AS at,
    'seller:' || coalesce(d.seller_id, 'none') AS debit, 'platform:fees' AS credit,
    (d.final_value_cents * 5 + 50) / 100 AS amount_cents, 'platform_fee' AS kind, d.id AS deal_id,
    NULL::text AS gig_id, d.seller_id, NULL::text AS closer_id, 0 AS seq
  FROM deals d WHERE d.stage = 'closed_won' AND (d.final_value_cents * 5 + 50) / 100 > 0
  UNION ALL
  SELECT p.kind || ':' || p.gig_id, p.at, 'seller:' || coalesce(p.seller_id, 'none'),
    'closer:' || p.closer_id || ':pending', p.amount_cents, p.kind, p.deal_id, p.gig_id, p.seller_id, p.closer_id, p.seq
  FROM payouts p WHERE p.amount_cents > 0
) settled ORDER BY at, seq;
