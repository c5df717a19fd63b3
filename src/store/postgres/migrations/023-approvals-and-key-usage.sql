-- 023: a key's bounds (D-68 to D-70). approvals: the held proposals, numbered from their own
-- sequence (apr_NNNN), the document the record; at most one pending per deal (the unit that
-- holds one takes the deal's approvals lock and checks first; the index says so too). key_usage:
-- the closes won committed through a key on a UTC day of the platform clock, a row per key and
-- day, added to in the unit of work that commits the close; a unit that checks a daily limit
-- takes the key's lock first, so proposals through one key never pass its limit together.
CREATE TABLE approvals (
  id text PRIMARY KEY,
  number bigint NOT NULL,
  deal_id text NOT NULL,
  seller_id text NOT NULL,
  key_id text NOT NULL,
  status text NOT NULL,
  deal_version integer NOT NULL,
  expires_at bigint NOT NULL,
  doc json NOT NULL
);
CREATE UNIQUE INDEX approvals_by_number ON approvals (number);
CREATE UNIQUE INDEX approvals_pending_by_deal ON approvals (deal_id) WHERE status = 'pending';
CREATE INDEX approvals_by_seller ON approvals (seller_id, number);
CREATE INDEX approvals_pending_by_expiry ON approvals (expires_at) WHERE status = 'pending';
CREATE SEQUENCE approval_numbers OWNED BY approvals.number;

-- An approval's number is taken as a refused proposal's is (014), its table locked first.
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
  END CASE;
END
$$;

CREATE TABLE key_usage (
  key_id text NOT NULL,
  day text NOT NULL,
  principal text NOT NULL,
  closes integer NOT NULL,
  closed_value_cents bigint NOT NULL,
  PRIMARY KEY (key_id, day)
);

ALTER TABLE approvals ENABLE ROW LEVEL SECURITY;
ALTER TABLE approvals FORCE ROW LEVEL SECURITY;
ALTER TABLE key_usage ENABLE ROW LEVEL SECURITY;
ALTER TABLE key_usage FORCE ROW LEVEL SECURITY;

CREATE POLICY approvals_of_principal ON approvals
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR seller_id = current_setting('pipeline.principal', true));

CREATE POLICY key_usage_of_principal ON key_usage
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR principal = current_setting('pipeline.principal', true));

-- The demo reset deletes the approvals with their deals (and restarts their numbers).
CREATE OR REPLACE FUNCTION wipe_tables() RETURNS void LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
  TRUNCATE deals, gigs, closers, payouts, idempotency_keys, event_outbox, events,
    webhooks, webhook_deliveries, webhook_attempts, refused_proposals, proposal_counts, approvals RESTART IDENTITY;
END;
$$;
