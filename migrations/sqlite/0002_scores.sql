-- Scores: every match, its players, every round and every attempt, the
-- players' ratings, and a per-period summary the leaderboards read.
--
-- Times are UTC milliseconds since the Unix epoch (INTEGER): a calendar
-- period (day, ISO week from Monday, month) is a plain range
-- `start <= t < end`, which an index on the column answers.

-- A match played in a room.
CREATE TABLE matches (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    -- The room's code at the time (codes are reused once a room closes).
    room_code      TEXT    NOT NULL,
    -- The room settings as JSON, exactly as played.
    settings       TEXT    NOT NULL,
    started_at     INTEGER NOT NULL,
    -- Set when the match finished or was abandoned.
    finished_at    INTEGER,
    status         TEXT    NOT NULL DEFAULT 'playing'
                           CHECK (status IN ('playing', 'finished', 'abandoned')),
    rounds_played  INTEGER NOT NULL DEFAULT 0,
    -- 1 when the ratings were updated from this match (2 or more players).
    rated          INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX matches_by_finish ON matches (finished_at);

-- Who played a match: the players seated at the start, and anyone who
-- joined during it and is in the final standings.
CREATE TABLE match_players (
    match_id       INTEGER NOT NULL REFERENCES matches (id),
    player_id      INTEGER NOT NULL REFERENCES players (id),
    -- Seating order at the start; later joiners come after.
    seat           INTEGER NOT NULL,
    -- Final score and rank (1-based, ties share a rank); NULL until the end.
    score          INTEGER,
    rank           INTEGER,
    -- Conservative rating (mu - 3 sigma) before and after a rated match.
    rating_before  REAL,
    rating_after   REAL,
    -- Copy of matches.finished_at, so a player's recent matches are one
    -- index range.
    finished_at    INTEGER,
    PRIMARY KEY (match_id, player_id)
) WITHOUT ROWID;
CREATE INDEX match_players_by_player ON match_players (player_id, finished_at);

-- One dealt hand and how it ended.
CREATE TABLE rounds (
    match_id       INTEGER NOT NULL REFERENCES matches (id),
    -- 1-based round number within the match.
    number         INTEGER NOT NULL,
    objective      INTEGER NOT NULL,
    -- The hand as a JSON array of card values.
    cards          TEXT    NOT NULL,
    started_at     INTEGER NOT NULL,
    ended_at       INTEGER,
    outcome        TEXT    NOT NULL DEFAULT 'playing'
                           CHECK (outcome IN ('playing', 'won', 'timed_out')),
    winner_id      INTEGER REFERENCES players (id),
    -- The winning formula; NULL for a right "no solution" claim.
    formula        TEXT,
    no_solution    INTEGER NOT NULL DEFAULT 0,
    -- Time from the deal to the winning answer.
    elapsed_ms     INTEGER,
    points         INTEGER,
    -- For a timed-out round: the solution revealed and how many there were.
    solution       TEXT,
    solutions      INTEGER,
    PRIMARY KEY (match_id, number)
) WITHOUT ROWID;
CREATE INDEX rounds_by_end ON rounds (ended_at);
CREATE INDEX rounds_by_winner ON rounds (winner_id, ended_at) WHERE winner_id IS NOT NULL;

-- Every formula or "no solution" claim that was judged.
CREATE TABLE attempts (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id       INTEGER NOT NULL,
    round          INTEGER NOT NULL,
    player_id      INTEGER NOT NULL REFERENCES players (id),
    -- NULL for a "no solution" claim.
    formula        TEXT,
    accepted       INTEGER NOT NULL,
    -- The refusal's kind (`wrong_value`, `locked_out`, ...); NULL if accepted.
    verdict        TEXT,
    elapsed_ms     INTEGER NOT NULL,
    at             INTEGER NOT NULL,
    FOREIGN KEY (match_id, round) REFERENCES rounds (match_id, number)
);
CREATE INDEX attempts_by_round ON attempts (match_id, round);

-- Weng-Lin (OpenSkill) rating of each player who finished a rated match.
CREATE TABLE ratings (
    player_id      INTEGER PRIMARY KEY REFERENCES players (id),
    mu             REAL    NOT NULL,
    sigma          REAL    NOT NULL,
    -- Rated matches played.
    matches        INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);

-- What the leaderboards read: per player and period, maintained by the
-- triggers below in the same transaction as the rows they summarise, so a
-- leaderboard is an index range scan instead of an aggregate over a
-- million rounds, and the summary cannot disagree with the rows.
-- `period` is 'all' (period_start 0), 'month', 'week' (ISO, from Monday)
-- or 'day'; `period_start` is the UTC millisecond the period begins.
CREATE TABLE player_stats (
    period         TEXT    NOT NULL CHECK (period IN ('all', 'month', 'week', 'day')),
    period_start   INTEGER NOT NULL,
    player_id      INTEGER NOT NULL REFERENCES players (id),
    -- Finished matches played (rated or not).
    played         INTEGER NOT NULL DEFAULT 0,
    -- Rated matches (2 or more players) finished.
    matches        INTEGER NOT NULL DEFAULT 0,
    -- Rated matches finished with rank 1.
    wins           INTEGER NOT NULL DEFAULT 0,
    rounds_won     INTEGER NOT NULL DEFAULT 0,
    -- Best winning time with a formula, in ms.
    fastest_ms     INTEGER,
    -- Conservative rating after the player's last rated match in the
    -- period, rounded to 0.1 as shown (equal shown values share a rank).
    rating         REAL,
    -- The player's rated matches in total at that time, for the minimum.
    rated_total    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (period, period_start, player_id)
) WITHOUT ROWID;
-- Each board's index holds every column its queries read (`matches`
-- too), so walking to an `around` page never touches the table.
CREATE INDEX player_stats_rating
    ON player_stats (period, period_start, rating DESC, player_id, rated_total, matches)
    WHERE rating IS NOT NULL;
CREATE INDEX player_stats_wins
    ON player_stats (period, period_start, wins DESC, player_id, matches)
    WHERE wins > 0;
CREATE INDEX player_stats_rounds
    ON player_stats (period, period_start, rounds_won DESC, player_id, matches)
    WHERE rounds_won > 0;
CREATE INDEX player_stats_fastest
    ON player_stats (period, period_start, fastest_ms, player_id, matches)
    WHERE fastest_ms IS NOT NULL;

-- The start (UTC ms) of the month, ISO week and day containing a time `t`
-- in ms, as the triggers compute them (1970-01-01 was a Thursday, so
-- (days + 3) % 7 is the number of days since Monday):
--   month: strftime('%s', t / 1000, 'unixepoch', 'start of month') * 1000
--   week:  (t / 86400000 - (t / 86400000 + 3) % 7) * 86400000
--   day:   t / 86400000 * 86400000

-- A round won: one more round and perhaps a best time for the winner. (A
-- right "no solution" claim wins the round but is not a solve time.)
CREATE TRIGGER rounds_won_insert AFTER INSERT ON rounds
WHEN NEW.outcome = 'won' AND NEW.winner_id IS NOT NULL
BEGIN
    INSERT INTO player_stats (period, period_start, player_id, rounds_won, fastest_ms)
    SELECT p.period, p.start, NEW.winner_id, 1,
           CASE WHEN NEW.no_solution THEN NULL ELSE NEW.elapsed_ms END
    FROM (SELECT 'all' AS period, 0 AS start
          UNION ALL SELECT 'month', CAST(strftime('%s', NEW.ended_at / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000
          UNION ALL SELECT 'week', (NEW.ended_at / 86400000 - (NEW.ended_at / 86400000 + 3) % 7) * 86400000
          UNION ALL SELECT 'day', NEW.ended_at / 86400000 * 86400000) AS p
    WHERE true
    ON CONFLICT (period, period_start, player_id) DO UPDATE SET
        rounds_won = rounds_won + 1,
        fastest_ms = coalesce(min(fastest_ms, excluded.fastest_ms), fastest_ms, excluded.fastest_ms);
END;

CREATE TRIGGER rounds_won_update AFTER UPDATE OF outcome ON rounds
WHEN NEW.outcome = 'won' AND OLD.outcome <> 'won' AND NEW.winner_id IS NOT NULL
BEGIN
    INSERT INTO player_stats (period, period_start, player_id, rounds_won, fastest_ms)
    SELECT p.period, p.start, NEW.winner_id, 1,
           CASE WHEN NEW.no_solution THEN NULL ELSE NEW.elapsed_ms END
    FROM (SELECT 'all' AS period, 0 AS start
          UNION ALL SELECT 'month', CAST(strftime('%s', NEW.ended_at / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000
          UNION ALL SELECT 'week', (NEW.ended_at / 86400000 - (NEW.ended_at / 86400000 + 3) % 7) * 86400000
          UNION ALL SELECT 'day', NEW.ended_at / 86400000 * 86400000) AS p
    WHERE true
    ON CONFLICT (period, period_start, player_id) DO UPDATE SET
        rounds_won = rounds_won + 1,
        fastest_ms = coalesce(min(fastest_ms, excluded.fastest_ms), fastest_ms, excluded.fastest_ms);
END;

-- A player's match finished: one more match played; for a rated match
-- (rating_after set, after `ratings` was updated) one more rated match, a
-- win for rank 1, and the rating now.
CREATE TRIGGER match_players_finished_insert AFTER INSERT ON match_players
WHEN NEW.finished_at IS NOT NULL
BEGIN
    INSERT INTO player_stats (period, period_start, player_id, played, matches, wins,
                              rating, rated_total)
    SELECT p.period, p.start, NEW.player_id, 1,
           NEW.rating_after IS NOT NULL,
           NEW.rating_after IS NOT NULL AND NEW.rank = 1,
           NEW.rating_after,
           coalesce((SELECT matches FROM ratings WHERE player_id = NEW.player_id), 0)
    FROM (SELECT 'all' AS period, 0 AS start
          UNION ALL SELECT 'month', CAST(strftime('%s', NEW.finished_at / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000
          UNION ALL SELECT 'week', (NEW.finished_at / 86400000 - (NEW.finished_at / 86400000 + 3) % 7) * 86400000
          UNION ALL SELECT 'day', NEW.finished_at / 86400000 * 86400000) AS p
    WHERE true
    ON CONFLICT (period, period_start, player_id) DO UPDATE SET
        played = played + 1,
        matches = matches + excluded.matches,
        wins = wins + excluded.wins,
        rating = coalesce(excluded.rating, rating),
        rated_total = max(rated_total, excluded.rated_total);
END;

CREATE TRIGGER match_players_finished_update AFTER UPDATE OF finished_at ON match_players
WHEN OLD.finished_at IS NULL AND NEW.finished_at IS NOT NULL
BEGIN
    INSERT INTO player_stats (period, period_start, player_id, played, matches, wins,
                              rating, rated_total)
    SELECT p.period, p.start, NEW.player_id, 1,
           NEW.rating_after IS NOT NULL,
           NEW.rating_after IS NOT NULL AND NEW.rank = 1,
           NEW.rating_after,
           coalesce((SELECT matches FROM ratings WHERE player_id = NEW.player_id), 0)
    FROM (SELECT 'all' AS period, 0 AS start
          UNION ALL SELECT 'month', CAST(strftime('%s', NEW.finished_at / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000
          UNION ALL SELECT 'week', (NEW.finished_at / 86400000 - (NEW.finished_at / 86400000 + 3) % 7) * 86400000
          UNION ALL SELECT 'day', NEW.finished_at / 86400000 * 86400000) AS p
    WHERE true
    ON CONFLICT (period, period_start, player_id) DO UPDATE SET
        played = played + 1,
        matches = matches + excluded.matches,
        wins = wins + excluded.wins,
        rating = coalesce(excluded.rating, rating),
        rated_total = max(rated_total, excluded.rated_total);
END;
