-- The retention of attempts (`--attempts-retention-days`): a wrong answer
-- older than the retention is deleted, and the judged ones among them are
-- counted here per player and round first, so a match's recap still says
-- how many wrong answers each player made in each round.
--
-- match_id is the match's id as text (the same text in both backends).
CREATE TABLE attempt_summaries (
    match_id    TEXT    NOT NULL,
    round       INTEGER NOT NULL,
    player_id   INTEGER NOT NULL REFERENCES players (id),
    -- Judged wrong answers deleted (locked-out and too-late ones are never
    -- read, so never counted).
    wrong       INTEGER NOT NULL,
    PRIMARY KEY (match_id, round, player_id)
);

-- The pruner's way to the oldest wrong answers without scanning the right
-- ones, which are kept.
CREATE INDEX attempts_wrong_by_time ON attempts (at, id) WHERE NOT accepted;
