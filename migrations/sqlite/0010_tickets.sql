-- Signing in without the long-lived token travelling anywhere.
--
-- A ticket is single use and short lived, and only its SHA-256 is kept:
-- `device` — the short code a signed-in device shows so another device of
-- the same person can use the name (minutes to live); `handover` — given
-- with a `redirect`, exchanged on the node the room moved to (seconds to
-- live). Exchanging a ticket deletes it and gives the new device a token of
-- its own, kept in `player_tokens` beside the player's first token.
CREATE TABLE player_tickets (
    ticket_hash TEXT    PRIMARY KEY,
    player_id   INTEGER NOT NULL REFERENCES players (id),
    kind        TEXT    NOT NULL,
    -- Unix time in milliseconds after which the ticket is refused.
    expires_ms  INTEGER NOT NULL
);
CREATE INDEX player_tickets_by_player ON player_tickets (player_id, kind);

CREATE TABLE player_tokens (
    token_hash  TEXT    PRIMARY KEY,
    player_id   INTEGER NOT NULL REFERENCES players (id),
    created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX player_tokens_by_player ON player_tokens (player_id);
