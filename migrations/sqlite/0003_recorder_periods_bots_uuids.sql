-- Three changes to the scores schema of 0002:
--
-- 1. Leaderboard periods are computed once, in Rust (server/src/periods.rs):
--    the recorder writes the `player_stats` rows itself, in the same
--    transaction as the rows they summarise. The triggers that computed
--    the periods a second time, in SQL, go.
-- 2. Bots are stored as bots (never rated, never on a leaderboard), and the
--    rating board counts the different opponents a player met in rated
--    matches (a board needs real opposition, not a farm of puppets).
-- 3. Match ids are UUIDv7 text minted by the room that plays the match, so
--    a match start no longer waits for a commit to learn its id, and two
--    servers sharing a database can never collide. Matches recorded before
--    keep their number inside a UUID of timestamp 0
--    (`00000000-0000-7000-8000-00000000002a` for match 42), so they sort
--    before every new one.

DROP TRIGGER rounds_won_insert;
DROP TRIGGER rounds_won_update;
DROP TRIGGER match_players_finished_insert;
DROP TRIGGER match_players_finished_update;

-- 1 for a program that said `bot` in its hello.
ALTER TABLE players ADD COLUMN bot INTEGER NOT NULL DEFAULT 0;

-- The match tables again, with text ids. New tables are filled from the
-- old ones, the old ones dropped (children first), and the new ones
-- renamed into place (which also renames the references between them).
CREATE TABLE matches_v3 (
    -- UUIDv7, lowercase hyphenated text.
    id             TEXT    PRIMARY KEY NOT NULL,
    room_code      TEXT    NOT NULL,
    settings       TEXT    NOT NULL,
    started_at     INTEGER NOT NULL,
    finished_at    INTEGER,
    status         TEXT    NOT NULL DEFAULT 'playing'
                           CHECK (status IN ('playing', 'finished', 'abandoned')),
    rounds_played  INTEGER NOT NULL DEFAULT 0,
    -- 1 when the ratings were updated from this match: two or more players
    -- (people, not bots) made at least one attempt.
    rated          INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
INSERT INTO matches_v3
SELECT printf('00000000-0000-7000-8000-%012x', id), room_code, settings, started_at,
       finished_at, status, rounds_played, rated
FROM matches;

CREATE TABLE match_players_v3 (
    match_id       TEXT    NOT NULL REFERENCES matches_v3 (id),
    player_id      INTEGER NOT NULL REFERENCES players (id),
    seat           INTEGER NOT NULL,
    score          INTEGER,
    rank           INTEGER,
    -- Conservative rating before and after, for the players the match rated.
    rating_before  REAL,
    rating_after   REAL,
    finished_at    INTEGER,
    PRIMARY KEY (match_id, player_id)
) WITHOUT ROWID;
INSERT INTO match_players_v3
SELECT printf('00000000-0000-7000-8000-%012x', match_id), player_id, seat, score, rank,
       rating_before, rating_after, finished_at
FROM match_players;

CREATE TABLE rounds_v3 (
    match_id       TEXT    NOT NULL REFERENCES matches_v3 (id),
    number         INTEGER NOT NULL,
    objective      INTEGER NOT NULL,
    cards          TEXT    NOT NULL,
    started_at     INTEGER NOT NULL,
    ended_at       INTEGER,
    outcome        TEXT    NOT NULL DEFAULT 'playing'
                           CHECK (outcome IN ('playing', 'won', 'timed_out')),
    winner_id      INTEGER REFERENCES players (id),
    formula        TEXT,
    no_solution    INTEGER NOT NULL DEFAULT 0,
    elapsed_ms     INTEGER,
    points         INTEGER,
    solution       TEXT,
    solutions      INTEGER,
    PRIMARY KEY (match_id, number)
) WITHOUT ROWID;
INSERT INTO rounds_v3
SELECT printf('00000000-0000-7000-8000-%012x', match_id), number, objective, cards,
       started_at, ended_at, outcome, winner_id, formula, no_solution, elapsed_ms, points,
       solution, solutions
FROM rounds;

CREATE TABLE attempts_v3 (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id       TEXT    NOT NULL,
    round          INTEGER NOT NULL,
    player_id      INTEGER NOT NULL REFERENCES players (id),
    formula        TEXT,
    accepted       INTEGER NOT NULL,
    verdict        TEXT,
    elapsed_ms     INTEGER NOT NULL,
    at             INTEGER NOT NULL,
    FOREIGN KEY (match_id, round) REFERENCES rounds_v3 (match_id, number)
);
INSERT INTO attempts_v3
SELECT id, printf('00000000-0000-7000-8000-%012x', match_id), round, player_id, formula,
       accepted, verdict, elapsed_ms, at
FROM attempts;

DROP TABLE attempts;
DROP TABLE rounds;
DROP TABLE match_players;
DROP TABLE matches;
ALTER TABLE matches_v3 RENAME TO matches;
ALTER TABLE rounds_v3 RENAME TO rounds;
ALTER TABLE match_players_v3 RENAME TO match_players;
ALTER TABLE attempts_v3 RENAME TO attempts;
CREATE INDEX matches_by_finish ON matches (finished_at);
CREATE INDEX match_players_by_player ON match_players (player_id, finished_at);
CREATE INDEX rounds_by_end ON rounds (ended_at);
CREATE INDEX rounds_by_winner ON rounds (winner_id, ended_at) WHERE winner_id IS NOT NULL;
CREATE INDEX attempts_by_round ON attempts (match_id, round);

-- Who met whom in a rated match (both directions), for the rating board's
-- minimum of different opponents.
CREATE TABLE opponents (
    player_id      INTEGER NOT NULL REFERENCES players (id),
    opponent_id    INTEGER NOT NULL REFERENCES players (id),
    PRIMARY KEY (player_id, opponent_id)
) WITHOUT ROWID;
INSERT INTO opponents
SELECT DISTINCT a.player_id, b.player_id
FROM match_players a JOIN match_players b
  ON b.match_id = a.match_id AND b.player_id <> a.player_id
WHERE a.rating_after IS NOT NULL AND b.rating_after IS NOT NULL;

-- Different opponents met in rated matches, in total.
ALTER TABLE ratings ADD COLUMN opponents INTEGER NOT NULL DEFAULT 0;
UPDATE ratings
SET opponents = (SELECT count(*) FROM opponents o WHERE o.player_id = ratings.player_id);

-- The player's different opponents in total at the time of the row's last
-- rated match, like `rated_total`.
ALTER TABLE player_stats ADD COLUMN opponents INTEGER NOT NULL DEFAULT 0;
UPDATE player_stats
SET opponents = coalesce((SELECT r.opponents FROM ratings r
                          WHERE r.player_id = player_stats.player_id), 0);

DROP INDEX player_stats_rating;
CREATE INDEX player_stats_rating
    ON player_stats (period, period_start, rating DESC, player_id, rated_total, opponents, matches)
    WHERE rating IS NOT NULL;
