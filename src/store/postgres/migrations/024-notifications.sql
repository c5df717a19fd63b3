-- 024: people's notifications (D-72). A notifier follows the feed with a cursor (its row is the
-- lock: one instance at a time) and makes a notification for each person an event concerns;
-- (seq, user_id) is unique, so two notifiers that read one event make one notification. Their
-- numbers come from a sequence as the row is added (ntf_NNNN is made of the number). Settings are
-- a row per person who changed them (the defaults otherwise), with the time of their last gig digest.
CREATE SEQUENCE notification_numbers;
CREATE TABLE notifications (
  number bigint PRIMARY KEY DEFAULT nextval('notification_numbers'),
  user_id text NOT NULL,
  principal text NOT NULL,
  seq bigint NOT NULL,
  type text NOT NULL,
  title text NOT NULL,
  deal_id text,
  approval_id text,
  gig_id text,
  at bigint NOT NULL,
  read_at bigint,
  mail text NOT NULL,
  mailed_at bigint,
  UNIQUE (seq, user_id)
);
ALTER SEQUENCE notification_numbers OWNED BY notifications.number;
CREATE INDEX notifications_of_user ON notifications (user_id, number);
CREATE INDEX notifications_unread_of_user ON notifications (user_id) WHERE read_at IS NULL;
CREATE INDEX notifications_waiting_digest ON notifications (user_id, number) WHERE mail = 'digest' AND mailed_at IS NULL;

CREATE TABLE notification_settings (
  user_id text PRIMARY KEY,
  principal text NOT NULL,
  email json,
  last_digest_at bigint
);

CREATE TABLE notifier_cursor (cursor bigint NOT NULL);
INSERT INTO notifier_cursor (cursor) SELECT last_seq FROM event_feed;

ALTER TABLE notifications ENABLE ROW LEVEL SECURITY;
ALTER TABLE notifications FORCE ROW LEVEL SECURITY;
ALTER TABLE notification_settings ENABLE ROW LEVEL SECURITY;
ALTER TABLE notification_settings FORCE ROW LEVEL SECURITY;

CREATE POLICY notifications_of_principal ON notifications
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR principal = current_setting('pipeline.principal', true));

CREATE POLICY notification_settings_of_principal ON notification_settings
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR principal = current_setting('pipeline.principal', true));
