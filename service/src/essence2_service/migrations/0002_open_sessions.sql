-- 0002: the open sessions of an account are counted at each session start (the per-account limit).
CREATE INDEX sessions_open ON sessions (account_id) WHERE closed_at IS NULL;
