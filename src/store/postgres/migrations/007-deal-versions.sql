-- 007: deal versions (D-47). A deal's document carries `version`; deals stored before it are at
-- version 1 (their next change makes them 2). A stored idempotent answer keeps the ETag it was
-- sent with, so that its replay sends it again.
UPDATE deals SET doc = (json_build_object('version', 1)::jsonb || doc::jsonb)::json WHERE doc->'version' IS NULL;
ALTER TABLE idempotency_keys ADD COLUMN etag text;
