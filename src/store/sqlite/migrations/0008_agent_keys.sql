-- locker schema, version 8: agent signing keys and repository settings (issue 10, signed appends).
-- Migrations are append-only: never edit a released one.

-- An agent's Ed25519 public key, registered by the operator with `locker key generate`. The
-- private key stays with the agent. `vkey` is the key in signed-note form
-- (`<agent>+<key id>+<base64>`); a revoked key verifies only what it signed before it was
-- revoked. `locker verify` checks every row against the journal's `key.*` entries.
CREATE TABLE agent_keys (
    agent      TEXT NOT NULL,
    key_id     TEXT NOT NULL,
    vkey       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER,
    PRIMARY KEY (agent, key_id)
);

-- Repository-wide settings changed through the journal (`repo.setting` entries), e.g.
-- `require_signed_appends`.
CREATE TABLE repo_settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
