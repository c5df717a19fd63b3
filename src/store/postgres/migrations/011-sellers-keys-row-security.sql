-- 011: Sellers, API keys and row-level security (D-51, D-52, D-54, D-57).
--
-- Sellers and keys. A key is kept as its SHA-256 (`hash`, unique) and its document; `mark` is
-- its change mark (keysChangedSince): a number from api_key_marks given when the key is stored
-- and again whenever it is stored again (created, rolled, revoked), never when only its last use
-- is written (last_used_at, a column of its own, so that touchKeys leaves the mark alone). The
-- numbers of Sellers and keys come from sequences no table owns, so the demo reset's
-- `TRUNCATE … RESTART IDENTITY` never restarts them; the reset does not truncate sellers or
-- api_keys either (it deletes closers' keys only: the closers go with the reset).
--
-- Owners. deals, gigs, payouts, events (and the outbox) carry seller_id, the Seller owning the
-- deal; gigs, events (and the outbox) carry closer_id; stored idempotent answers and webhooks
-- carry `owner`, the principal that made them (NULL: the platform or the demo).
-- Deals stored before keys existed get an owner here: if any deal exists, Seller `seller_0001`
-- "Deals from before keys" is created (created now) and becomes the seller of every existing
-- deal, its gigs, its payout lines and its events, in the column and in the deal's and gig's
-- document (`sellerId`); the seller numbers then go on from 2. A database with no deal gets no
-- Seller. Documents are edited as text, not through jsonb, which cannot hold U+0000 (001).
--
-- Row-level security (D-57), the second wall behind the application's own filters: deals, gigs,
-- payouts, events, idempotency_keys, webhooks and api_keys are ENABLEd and FORCEd (the owner, the
-- role the service connects as, is held to the policies too). Every policy reads the principal
-- the store sets in each transaction with set_config('pipeline.principal', …, true):
--   `platform` (the service's own work: timers, sequencer, webhook dispatch, the demo) and
--   `operator` see and write every row;
--   a Seller id sees and writes the rows whose seller_id (owner, principal) is it;
--   a closer id sees gigs that are open or whose closer_id is it, the deals that have such a gig,
--   payout lines and events whose closer_id is it, and its own answers, webhooks and keys;
--   an unset or empty principal (a plain connection) sees nothing and writes nothing.
-- A closer's claim reads and updates the deal of an open gig, so the deal of an open gig is
-- visible to every closer here; the application shows a closer none of those deals. Any set
-- principal may add events (a closer's move publishes events about the Seller's deal).
-- Superusers and BYPASSRLS roles skip every policy: the store refuses to start on such a role
-- when asked to (role-check.ts), and PGlite, which runs as its superuser, relies on the
-- application's filters alone.
--
-- id_len: the length of the id, as a plain column. Pages run in id order (length(id), id), and
-- length() is not LEAKPROOF: under row-level security the planner may not use a condition that
-- calls it as an index bound, so a page after a cursor read the whole table (93 ms at 200,000
-- deals instead of 0.2 ms). Conditions on the column use only leakproof operators.

CREATE TABLE sellers (
  id text COLLATE "C" PRIMARY KEY,
  created_at bigint NOT NULL,
  doc json NOT NULL
);

CREATE SEQUENCE seller_numbers;
CREATE SEQUENCE key_numbers;
CREATE SEQUENCE api_key_marks;

CREATE TABLE api_keys (
  id text COLLATE "C" PRIMARY KEY,
  hash text COLLATE "C" NOT NULL UNIQUE,
  principal text COLLATE "C" NOT NULL,
  last_used_at bigint,
  mark bigint NOT NULL DEFAULT nextval('api_key_marks'),
  doc json NOT NULL
);
CREATE INDEX api_keys_principal ON api_keys (principal);
CREATE INDEX api_keys_mark ON api_keys (mark);

ALTER TABLE deals ADD COLUMN seller_id text COLLATE "C";
ALTER TABLE deals ADD COLUMN id_len integer GENERATED ALWAYS AS (length(id)) STORED;
ALTER TABLE gigs ADD COLUMN seller_id text COLLATE "C";
ALTER TABLE gigs ADD COLUMN closer_id text COLLATE "C";
ALTER TABLE gigs ADD COLUMN id_len integer GENERATED ALWAYS AS (length(id)) STORED;
ALTER TABLE payouts ADD COLUMN seller_id text COLLATE "C";
ALTER TABLE event_outbox ADD COLUMN seller_id text COLLATE "C";
ALTER TABLE event_outbox ADD COLUMN closer_id text COLLATE "C";
ALTER TABLE event_outbox ADD COLUMN actor json;
ALTER TABLE events ADD COLUMN seller_id text COLLATE "C";
ALTER TABLE events ADD COLUMN closer_id text COLLATE "C";
ALTER TABLE events ADD COLUMN actor json;
ALTER TABLE idempotency_keys ADD COLUMN owner text COLLATE "C";
ALTER TABLE webhooks ADD COLUMN owner text COLLATE "C";

-- The id-order indexes of 002 again, on id_len (see above); the old ones go.
DROP INDEX deals_stage_id_order;
DROP INDEX deals_id_order;
CREATE INDEX deals_stage_id_order ON deals (stage, id_len, id);
CREATE INDEX deals_id_order ON deals (id_len, id);
CREATE INDEX deals_seller_id_order ON deals (seller_id, id_len, id) WHERE seller_id IS NOT NULL;
CREATE INDEX gigs_seller_id_order ON gigs (seller_id, id_len, id) WHERE seller_id IS NOT NULL;
CREATE INDEX gigs_closer_id ON gigs (closer_id) WHERE closer_id IS NOT NULL;
CREATE INDEX payouts_seller_id ON payouts (seller_id, seq) WHERE seller_id IS NOT NULL;
CREATE INDEX events_seller_id_seq ON events (seller_id, seq) WHERE seller_id IS NOT NULL;
CREATE INDEX events_closer_id_seq ON events (closer_id, seq) WHERE closer_id IS NOT NULL;
CREATE INDEX idempotency_keys_owner ON idempotency_keys (owner) WHERE owner IS NOT NULL;
CREATE INDEX webhooks_owner ON webhooks (owner) WHERE owner IS NOT NULL;

-- Gigs' claimants, until now only in the documents.
UPDATE gigs SET closer_id = doc->>'closerId' WHERE doc->>'closerId' IS NOT NULL;
-- Events' closers, from their data (gig.claimed, gig.fulfilled, payout.posted).
UPDATE events SET closer_id = coalesce(data->>'closerId', data->'line'->>'closerId')
  WHERE coalesce(data->>'closerId', data->'line'->>'closerId') IS NOT NULL;
UPDATE event_outbox SET closer_id = coalesce(data->>'closerId', data->'line'->>'closerId')
  WHERE coalesce(data->>'closerId', data->'line'->>'closerId') IS NOT NULL;

-- The owner of the deals from before keys (see above).
INSERT INTO sellers (id, created_at, doc)
  SELECT 'seller_0001', now_ms, json_build_object('id', 'seller_0001', 'name', 'Deals from before keys', 'createdAt', now_ms)
  FROM (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms) AS t
  WHERE EXISTS (SELECT 1 FROM deals);
SELECT setval('seller_numbers', 1) WHERE EXISTS (SELECT 1 FROM sellers);
-- `{…}` becomes `{"sellerId":"seller_0001",…}` (a document is never `{}`; one that names a
-- seller already is left as it is).
UPDATE deals SET seller_id = 'seller_0001',
    doc = regexp_replace(doc::text, '^\s*\{', '{"sellerId":"seller_0001",')::json
  WHERE seller_id IS NULL AND doc->>'sellerId' IS NULL AND EXISTS (SELECT 1 FROM sellers WHERE id = 'seller_0001');
UPDATE gigs SET seller_id = 'seller_0001',
    doc = regexp_replace(doc::text, '^\s*\{', '{"sellerId":"seller_0001",')::json
  WHERE seller_id IS NULL AND doc->>'sellerId' IS NULL AND EXISTS (SELECT 1 FROM sellers WHERE id = 'seller_0001');
UPDATE payouts SET seller_id = 'seller_0001' WHERE seller_id IS NULL AND deal_id IN (SELECT id FROM deals WHERE seller_id = 'seller_0001');
UPDATE events SET seller_id = 'seller_0001' WHERE seller_id IS NULL AND deal_id IN (SELECT id FROM deals WHERE seller_id = 'seller_0001');
UPDATE event_outbox SET seller_id = 'seller_0001' WHERE seller_id IS NULL AND deal_id IN (SELECT id FROM deals WHERE seller_id = 'seller_0001');

-- Row-level security (see above).
ALTER TABLE deals ENABLE ROW LEVEL SECURITY;
ALTER TABLE deals FORCE ROW LEVEL SECURITY;
ALTER TABLE gigs ENABLE ROW LEVEL SECURITY;
ALTER TABLE gigs FORCE ROW LEVEL SECURITY;
ALTER TABLE payouts ENABLE ROW LEVEL SECURITY;
ALTER TABLE payouts FORCE ROW LEVEL SECURITY;
ALTER TABLE events ENABLE ROW LEVEL SECURITY;
ALTER TABLE events FORCE ROW LEVEL SECURITY;
ALTER TABLE idempotency_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE idempotency_keys FORCE ROW LEVEL SECURITY;
ALTER TABLE webhooks ENABLE ROW LEVEL SECURITY;
ALTER TABLE webhooks FORCE ROW LEVEL SECURITY;
ALTER TABLE api_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE api_keys FORCE ROW LEVEL SECURITY;

CREATE POLICY deals_of_principal ON deals
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR seller_id = current_setting('pipeline.principal', true)
    -- A closer: the deals of its gigs, and of open gigs (a claim reads and updates the deal).
    OR (current_setting('pipeline.principal', true) LIKE 'closer\_%' AND EXISTS (
      SELECT 1 FROM gigs g WHERE g.deal_id = deals.id
        AND (g.status = 'open' OR g.closer_id = current_setting('pipeline.principal', true)))));

CREATE POLICY gigs_of_principal ON gigs
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR seller_id = current_setting('pipeline.principal', true)
    OR closer_id = current_setting('pipeline.principal', true)
    OR (status = 'open' AND current_setting('pipeline.principal', true) LIKE 'closer\_%'));

-- A closer: its own lines, and the lines of the deals it has a gig of (a settlement it may read
-- adds up every line of its deal).
CREATE POLICY payouts_of_principal ON payouts
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR seller_id = current_setting('pipeline.principal', true)
    OR closer_id = current_setting('pipeline.principal', true)
    OR (current_setting('pipeline.principal', true) LIKE 'closer\_%' AND EXISTS (
      SELECT 1 FROM gigs g WHERE g.deal_id = payouts.deal_id
        AND g.closer_id = current_setting('pipeline.principal', true))));

CREATE POLICY events_read ON events FOR SELECT
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR seller_id = current_setting('pipeline.principal', true)
    OR closer_id = current_setting('pipeline.principal', true));
CREATE POLICY events_add ON events FOR INSERT
  WITH CHECK (coalesce(current_setting('pipeline.principal', true), '') <> '');
CREATE POLICY events_purge ON events FOR DELETE
  USING (current_setting('pipeline.principal', true) IN ('platform', 'operator'));

CREATE POLICY answers_of_principal ON idempotency_keys
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR owner = current_setting('pipeline.principal', true));

CREATE POLICY webhooks_of_principal ON webhooks
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR owner = current_setting('pipeline.principal', true));

CREATE POLICY keys_of_principal ON api_keys
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR principal = current_setting('pipeline.principal', true));
