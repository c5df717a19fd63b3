-- 022: people and the mail outbox (D-62, D-63, D-64). Memory's reference behaviour is
-- src/store/memory/people-tables.ts and mail-tables.ts.
--
-- users: a person of a principal (the operator, a Seller, a closer) with a role, stored whole as
-- its document (`doc`; a password only as its Argon2id hash). `email_key` is the email as
-- emailKey() gives it (trimmed, lower-cased in JavaScript, so that every adapter compares the same
-- way): UNIQUE, since one email is one person across the deployment, whichever principal's
-- it is and whoever may see it (a constraint passes every policy). `mark` is the change mark
-- (usersChangedSince), given when a user is stored and again whenever it is stored again, as
-- console_sessions' is (021): writes of users are serialized by a transaction lock (sql-people.ts)
-- so that marks commit in order, and every instance learns of a disabling made through another.
-- `id_len`, as deals' (011): a page after a cursor stays an index bound under row-level security.
-- `role` and `disabled_at` are columns, so that the enabled admins are found without reading
-- the documents (json's ->> fails on a document holding U+0000 anywhere, as a name may).
-- User numbers come from a sequence no table owns, never restarted (as Sellers' and keys', 011).
--
-- one_time_tokens: an invitation's or a password reset's token, kept as its SHA-256 only.
-- sign_in_throttles: an email's failed sign-ins and its lock, by the SHA-256 of its key, with no
-- principal: it is read and written before anyone is known (the service does so as the platform).
-- mail_outbox: a message written in the unit of work that causes it and sent after the commit by
-- the mail worker; what never changes is its document, what a send changes are columns. A sender
-- claims due rows FOR UPDATE SKIP LOCKED, so that of several instances one sends each message.
-- console_sessions: a person's session names its user, and no key.
--
-- Row-level security (D-57, D-77), the principal read as 011's policies do: `platform` and
-- `operator` see and write every row, an unset or empty principal none.
--   users, one_time_tokens: a principal its own (its people and their tokens).
--   sign_in_throttles: the platform and the operator only. It names no principal to hold a
--     tenant to, and an email's lock must hold whoever asks, so no tenant reads or writes it.
--   mail_outbox: a principal adds its own messages (the unit that invites runs as the inviter's
--     principal; a reset as the platform); only the platform and the operator read, claim and
--     mark them. A tenant never reads mail back: its people receive it.
--
-- The demo reset (wipe.ts) truncates none of these, as it keeps Sellers and keys; it deletes
-- closers' users and their tokens, as it deletes closers' keys (the closers go). wipe_tables()
-- is therefore unchanged.

CREATE SEQUENCE user_numbers;
CREATE SEQUENCE user_marks;

CREATE TABLE users (
  id text COLLATE "C" PRIMARY KEY,
  id_len integer GENERATED ALWAYS AS (length(id)) STORED,
  email_key text COLLATE "C" NOT NULL UNIQUE,
  principal text COLLATE "C" NOT NULL,
  role text NOT NULL,
  disabled_at bigint,
  mark bigint NOT NULL DEFAULT nextval('user_marks'),
  doc json NOT NULL
);
CREATE INDEX users_id_order ON users (id_len, id);
CREATE INDEX users_principal_id_order ON users (principal, id_len, id);
CREATE INDEX users_mark ON users (mark);

CREATE TABLE one_time_tokens (
  hash text COLLATE "C" PRIMARY KEY,
  purpose text NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  principal text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  used_at bigint
);
CREATE INDEX one_time_tokens_user_id ON one_time_tokens (user_id);

CREATE TABLE sign_in_throttles (
  id text COLLATE "C" PRIMARY KEY,
  failures bigint[] NOT NULL,
  locked_until bigint
);

CREATE TABLE mail_outbox (
  id text COLLATE "C" PRIMARY KEY,
  principal text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  attempts integer NOT NULL,
  next_attempt_at bigint NOT NULL,
  sent_at bigint,
  failed_at bigint,
  last_error text,
  doc json NOT NULL
);
-- The claims' and nextMailDue's scan: the messages neither sent nor given up, by when due.
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at, created_at, id)
  WHERE sent_at IS NULL AND failed_at IS NULL;

ALTER TABLE console_sessions ALTER COLUMN key_id DROP NOT NULL, ADD COLUMN user_id text COLLATE "C";
CREATE INDEX console_sessions_user_id ON console_sessions (user_id) WHERE user_id IS NOT NULL;

ALTER TABLE users ENABLE ROW LEVEL SECURITY;
ALTER TABLE users FORCE ROW LEVEL SECURITY;
ALTER TABLE one_time_tokens ENABLE ROW LEVEL SECURITY;
ALTER TABLE one_time_tokens FORCE ROW LEVEL SECURITY;
ALTER TABLE sign_in_throttles ENABLE ROW LEVEL SECURITY;
ALTER TABLE sign_in_throttles FORCE ROW LEVEL SECURITY;
ALTER TABLE mail_outbox ENABLE ROW LEVEL SECURITY;
ALTER TABLE mail_outbox FORCE ROW LEVEL SECURITY;

CREATE POLICY users_of_principal ON users
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR principal = current_setting('pipeline.principal', true));

CREATE POLICY tokens_of_principal ON one_time_tokens
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR principal = current_setting('pipeline.principal', true));

CREATE POLICY throttles_of_platform ON sign_in_throttles
  USING (current_setting('pipeline.principal', true) IN ('platform', 'operator'));

CREATE POLICY mail_of_platform ON mail_outbox
  USING (current_setting('pipeline.principal', true) IN ('platform', 'operator'));
CREATE POLICY mail_add ON mail_outbox FOR INSERT
  WITH CHECK (principal = current_setting('pipeline.principal', true));

-- email_taken(): whether any person of the deployment has this email key. A tenant inviting a
-- person must learn that the email is taken (D-62: 409 EMAIL_TAKEN) though the person holding it
-- is another tenant's and invisible to it: the function answers that one bit, and nothing of
-- the person. The owner's statements are held to the policies too (FORCE), so the function reads
-- as the platform and puts the caller's principal back before it returns (as sequence_events
-- does, 019: a function's SET clause cannot name this setting without a superuser). SECURITY
-- DEFINER, its search_path fixed as wipe_tables()'s.
CREATE FUNCTION email_taken(key text) RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
  caller text := current_setting('pipeline.principal', true);
  taken boolean;
BEGIN
  PERFORM set_config('pipeline.principal', 'platform', true);
  SELECT EXISTS (SELECT 1 FROM users WHERE email_key = key) INTO taken;
  PERFORM set_config('pipeline.principal', coalesce(caller, ''), true);
  RETURN taken;
END;
$$;
REVOKE ALL ON FUNCTION email_taken(text) FROM PUBLIC;
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION email_taken(text) SET search_path = %I, pg_temp', current_schema());
END;
$$;
