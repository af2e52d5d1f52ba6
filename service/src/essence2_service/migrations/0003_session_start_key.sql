-- 0003: a session start may carry an idempotency key (Idempotency-Key): a start sent again with the same key by the
-- same account is the same session, not a second one (a client whose first start got no answer retries).
ALTER TABLE sessions ADD COLUMN start_key TEXT;
CREATE UNIQUE INDEX sessions_start_key ON sessions (account_id, start_key) WHERE start_key IS NOT NULL;
