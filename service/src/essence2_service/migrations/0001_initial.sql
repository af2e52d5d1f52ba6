-- 0001: accounts, API secrets, avatars, entitlements, sessions (with their usage).
CREATE TABLE accounts (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL UNIQUE,
    any_avatar  INTEGER NOT NULL DEFAULT 0 CHECK (any_avatar IN (0, 1)),
    created_at  TEXT    NOT NULL
);

-- A secret is "e2_<id>_<random>"; only the SHA-256 of the whole secret is stored.
CREATE TABLE api_secrets (
    id           TEXT    PRIMARY KEY,
    account_id   INTEGER NOT NULL REFERENCES accounts (id),
    secret_hash  BLOB    NOT NULL,
    created_at   TEXT    NOT NULL,
    revoked_at   TEXT
);
CREATE INDEX api_secrets_account ON api_secrets (account_id);

-- Several versions of one code may exist; the newest (largest id) is served.
CREATE TABLE avatars (
    id              INTEGER PRIMARY KEY,
    code            TEXT    NOT NULL,
    name            TEXT    NOT NULL,
    sha256          TEXT    NOT NULL UNIQUE,
    size            INTEGER NOT NULL,
    format_version  INTEGER NOT NULL,
    added_at        TEXT    NOT NULL
);
CREATE INDEX avatars_code ON avatars (code, id);

CREATE TABLE entitlements (
    account_id   INTEGER NOT NULL REFERENCES accounts (id),
    avatar_code  TEXT    NOT NULL,
    created_at   TEXT    NOT NULL,
    PRIMARY KEY (account_id, avatar_code)
);

-- One row per accepted session; the usage figures are the largest cumulative report received.
CREATE TABLE sessions (
    id               TEXT    PRIMARY KEY,
    account_id       INTEGER NOT NULL REFERENCES accounts (id),
    secret_id        TEXT    NOT NULL REFERENCES api_secrets (id),
    avatar_sha256    TEXT    NOT NULL,
    avatar_code      TEXT,
    install_id       TEXT    NOT NULL,
    client           TEXT,
    started_at       TEXT    NOT NULL,
    last_report_at   TEXT,
    seconds          INTEGER NOT NULL DEFAULT 0,
    talking_seconds  INTEGER NOT NULL DEFAULT 0,
    idle_seconds     INTEGER NOT NULL DEFAULT 0,
    closed_at        TEXT
);
CREATE INDEX sessions_account ON sessions (account_id);
