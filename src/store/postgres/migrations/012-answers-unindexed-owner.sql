-- 012: an answer is read by its key only, and a principal's key is stored under its owner's name
-- (`owner:key`), so the index 011 put on the answers' owner served no statement; every keyed
-- write of keys mode paid to keep it.
DROP INDEX IF EXISTS idempotency_keys_owner;
