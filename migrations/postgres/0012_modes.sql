-- Playing alone: the daily Krypto, challenges and solo runs.
--
-- Days are UTC dates written 'YYYY-MM-DD' (they sort as text); times are
-- Unix milliseconds from the server's clock.

-- The daily's secret and first day (#1): one row, inserted once by the
-- first node that needs it (insert-if-absent, then read), so every node of
-- a cluster deals the same hand. The secret (64 hex digits) never leaves
-- the server.
CREATE TABLE daily_setup (
    id          BIGINT PRIMARY KEY CHECK (id = 1),
    secret_hex  TEXT    NOT NULL,
    first_day   TEXT    NOT NULL
);

-- One player's attempt at one day's hand, from the moment it was first
-- sent: asking again resumes it. One result a day: solved_ms is set once.
CREATE TABLE daily_attempts (
    player_id   BIGINT NOT NULL REFERENCES players (id),
    day         TEXT    NOT NULL,
    started_ms  BIGINT NOT NULL,
    misses      BIGINT NOT NULL DEFAULT 0,
    solved_ms   BIGINT,
    -- The final time, penalties included, once solved.
    elapsed_ms  BIGINT,
    -- The right answer as the checker printed it, once solved.
    formula     TEXT,
    -- 1 when solved on the day itself (on the day's board, in the streak).
    rated       BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (player_id, day)
);
CREATE INDEX daily_attempts_board ON daily_attempts (day, rated, elapsed_ms, solved_ms);

-- A solved hand sent to friends by its code.
CREATE TABLE challenges (
    code        TEXT    PRIMARY KEY,
    player_id   BIGINT NOT NULL REFERENCES players (id),
    objective   BIGINT NOT NULL,
    -- The five cards, as a JSON array.
    cards       TEXT    NOT NULL,
    rules       TEXT    NOT NULL,
    elapsed_ms  BIGINT NOT NULL,
    misses      BIGINT NOT NULL,
    created_ms  BIGINT NOT NULL
);
CREATE INDEX challenges_by_player ON challenges (player_id);

-- Whoever opened a challenge: their clock, and their result once in.
CREATE TABLE challenge_attempts (
    code        TEXT    NOT NULL REFERENCES challenges (code),
    player_id   BIGINT NOT NULL REFERENCES players (id),
    started_ms  BIGINT NOT NULL,
    misses      BIGINT NOT NULL DEFAULT 0,
    solved_ms   BIGINT,
    elapsed_ms  BIGINT,
    PRIMARY KEY (code, player_id)
);

-- The best solo run of each player on each UTC day (the day it ended).
CREATE TABLE run_bests (
    player_id   BIGINT NOT NULL REFERENCES players (id),
    day         TEXT    NOT NULL,
    score       BIGINT NOT NULL,
    misses      BIGINT NOT NULL,
    best_combo  BIGINT NOT NULL,
    duration_ms BIGINT NOT NULL,
    finished_ms BIGINT NOT NULL,
    -- Runs finished that day, the best one included.
    runs        BIGINT NOT NULL DEFAULT 1,
    PRIMARY KEY (player_id, day)
);
CREATE INDEX run_bests_by_day ON run_bests (day, score);
