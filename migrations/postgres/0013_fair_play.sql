-- Fair play (docs/design.md, "Fair play: what a flag does"): the signals
-- kept per player, the flags they raise and every reviewer's decision.

-- A player's latest right answers in rated play, as `krypto_core::fair_play::Answer`
-- JSON; the server keeps a bounded window per player.
CREATE TABLE fair_play_answers (
    id           BIGSERIAL PRIMARY KEY,
    player_id    BIGINT NOT NULL REFERENCES players (id),
    answered_at  BIGINT NOT NULL,
    answer       TEXT   NOT NULL
);
CREATE INDEX fair_play_answers_by_player ON fair_play_answers (player_id, answered_at);

-- One row per player ever flagged: 'flagged' (off the boards, pending
-- review), 'cleared' (back on the boards; answers up to `cleared_through`
-- no longer count) or 'banned' (off the boards for good, never rated).
CREATE TABLE fair_play_flags (
    player_id        BIGINT PRIMARY KEY REFERENCES players (id),
    status           TEXT   NOT NULL CHECK (status IN ('flagged', 'cleared', 'banned')),
    flagged_at       BIGINT NOT NULL,
    evidence         TEXT   NOT NULL,
    cleared_through  BIGINT,
    decided_at       BIGINT NOT NULL
);

-- Every flag raised and every decision, with its time.
CREATE TABLE fair_play_decisions (
    id         BIGSERIAL PRIMARY KEY,
    player_id  BIGINT NOT NULL REFERENCES players (id),
    decision   TEXT   NOT NULL CHECK (decision IN ('flagged', 'cleared', 'banned')),
    at         BIGINT NOT NULL,
    evidence   TEXT
);

-- True on a flagged or banned player's rated matches.
ALTER TABLE match_players ADD COLUMN fair_play_flagged BOOLEAN NOT NULL DEFAULT false;
