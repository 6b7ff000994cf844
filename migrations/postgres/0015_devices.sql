-- Devices a player controls: every token that signs the player in has a
-- row here, the player's first token too (copied below; `players.token_hash`
-- stays the key the recorder creates players by, and is overwritten with an
-- unmatchable marker when that device is revoked).
--
-- `label` is the short description the device gave in its hello ("Firefox
-- on Android"); `created_ms` and `last_used_ms` are Unix milliseconds, the
-- latter written at most once a minute, so a token unused for the server's
-- expiry (90 days by default) can be refused and pruned.
ALTER TABLE player_tokens ADD COLUMN label TEXT NOT NULL DEFAULT 'a device';
ALTER TABLE player_tokens ADD COLUMN created_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE player_tokens ADD COLUMN last_used_ms BIGINT NOT NULL DEFAULT 0;

UPDATE player_tokens
SET created_ms = (extract(epoch FROM created_at) * 1000)::BIGINT,
    last_used_ms = (extract(epoch FROM now()) * 1000)::BIGINT;

INSERT INTO player_tokens (token_hash, player_id, label, created_ms, last_used_ms)
SELECT token_hash, id, 'first device',
       (extract(epoch FROM created_at) * 1000)::BIGINT,
       (extract(epoch FROM now()) * 1000)::BIGINT
FROM players
ON CONFLICT (token_hash) DO NOTHING;

CREATE INDEX player_tokens_by_last_use ON player_tokens (last_used_ms);
