-- 021: the console's sessions, stored (D-63). A session's cookie holds a random token; a row
-- keeps only its SHA-256 (`hash`), whom it acts as, the key it was signed in with, when it ends
-- by itself, and when it was ended (`ended_at`, by a sign-out). `mark` is its change mark
-- (sessionsChangedSince), given when the row is written and again when it is ended, so that every
-- instance learns of a sign-out made through another within its next read of the changes.
-- Writes of sessions are serialized by a transaction lock (as keys', migration 011), so their
-- marks commit in order. Rows that expired a day ago are purged at sign-ins.
-- Row-level security (D-57, D-77): a session belongs to its principal; the platform (which
-- authenticates every request) and the operator see every one; a plain connection none.
CREATE SEQUENCE console_session_marks;

CREATE TABLE console_sessions (
  id text COLLATE "C" PRIMARY KEY,
  hash text COLLATE "C" NOT NULL UNIQUE,
  principal text COLLATE "C" NOT NULL,
  key_id text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  ended_at bigint,
  mark bigint NOT NULL DEFAULT nextval('console_session_marks')
);
CREATE INDEX console_sessions_mark ON console_sessions (mark);
CREATE INDEX console_sessions_expires_at ON console_sessions (expires_at);

ALTER TABLE console_sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE console_sessions FORCE ROW LEVEL SECURITY;
CREATE POLICY sessions_of_principal ON console_sessions
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR principal = current_setting('pipeline.principal', true));
