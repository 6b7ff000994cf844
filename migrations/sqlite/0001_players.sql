-- Players: the identity behind every name. The server keeps only a hash of
-- each player's secret token, so a leaked database cannot be used to log in.
CREATE TABLE players (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    -- The name as the player typed it (trimmed), shown to others.
    name        TEXT    NOT NULL,
    -- The name lowercased: names are unique ignoring case.
    name_key    TEXT    NOT NULL UNIQUE,
    -- SHA-256 (hex) of the 128-bit token handed out in the first `welcome`.
    token_hash  TEXT    NOT NULL UNIQUE,
    -- When the player was created (UTC, ISO 8601).
    created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
