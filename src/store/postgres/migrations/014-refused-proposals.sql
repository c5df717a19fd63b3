-- 014: refused proposals (D-61). Every proposal the gate refuses is a row of refused_proposals,
-- numbered from its own sequence (prop_NNNN), its document the record. A deal keeps its newest
-- 1,000: the unit of work that records one deletes the deal's oldest when it has that many.
-- proposal_counts keeps the count of every refusal ever recorded, by deal, executor, code and key
-- (`''` for none: the demo's and the platform's), so the summary stays exact once records go.
-- Accepted moves are counted from the deals' own activity (an executor's entries): nothing
-- more is written for them.
CREATE TABLE refused_proposals (
  id text PRIMARY KEY,
  number bigint NOT NULL,
  deal_id text NOT NULL,
  seller_id text,
  principal text,
  key_id text,
  by text NOT NULL,
  code text NOT NULL,
  doc json NOT NULL
);
CREATE UNIQUE INDEX refused_proposals_by_number ON refused_proposals (number);
CREATE INDEX refused_proposals_by_deal ON refused_proposals (deal_id, number);
CREATE INDEX refused_proposals_by_seller ON refused_proposals (seller_id, number) WHERE seller_id IS NOT NULL;
CREATE SEQUENCE proposal_numbers OWNED BY refused_proposals.number;

CREATE TABLE proposal_counts (
  deal_id text NOT NULL,
  seller_id text,
  by text NOT NULL,
  code text NOT NULL,
  principal text NOT NULL DEFAULT '',
  key_id text NOT NULL DEFAULT '',
  n bigint NOT NULL,
  PRIMARY KEY (deal_id, by, code, principal, key_id)
);
CREATE INDEX proposal_counts_by_seller ON proposal_counts (seller_id) WHERE seller_id IS NOT NULL;

-- A hammered deal deletes a row for every row it adds: vacuum it by the count of dead rows, not
-- by a fraction of a table that stays the same size.
ALTER TABLE refused_proposals SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);
ALTER TABLE proposal_counts SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);

-- A refused proposal's number is taken when it is recorded (sql-numbers.ts), as a deal's is.
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
  END CASE;
END
$$;

-- D-57: a Seller reads the refusals on its deals, a closer the ones it proposed; the platform
-- and the operator all of them.
ALTER TABLE refused_proposals ENABLE ROW LEVEL SECURITY;
ALTER TABLE refused_proposals FORCE ROW LEVEL SECURITY;
ALTER TABLE proposal_counts ENABLE ROW LEVEL SECURITY;
ALTER TABLE proposal_counts FORCE ROW LEVEL SECURITY;
CREATE POLICY proposals_of_principal ON refused_proposals
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR seller_id = current_setting('pipeline.principal', true)
    OR principal = current_setting('pipeline.principal', true));
CREATE POLICY proposal_counts_of_principal ON proposal_counts
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR seller_id = current_setting('pipeline.principal', true)
    OR principal = current_setting('pipeline.principal', true));
