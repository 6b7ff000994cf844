-- Boards from real races (docs/design.md, "Scores, ratings and
-- leaderboards"): the `rounds` and `fastest` boards count the rounds of
-- rated matches only — two or more people (not bots) made a real attempt
-- at the hand, a whole formula over its cards or a right "no solution"
-- claim. Rounds are now credited when their match ends; until now every
-- round won was credited at once, solo matches and `1+1` puppets included.
--
-- The rows are recomputed from the recorded play. An attempt stored before
-- this rule counts as real when it won or when its verdict says the checker
-- got past the cards (its formula parsed and used each card once): a wrong
-- value, a division by zero, a rule broken, an overflow. Attempts refused
-- unread (locked out, too late) kept no text and do not count. Ratings,
-- wins and the rating board stay as they were recorded: Weng-Lin depends
-- on the order of every match, and the rating board already asks for three
-- different opponents.

UPDATE player_stats SET rounds_won = 0, fastest_ms = NULL;

WITH raced AS (
    SELECT m.id
    FROM matches m
    WHERE m.status = 'finished'
      AND (SELECT count(DISTINCT a.player_id)
           FROM attempts a JOIN players p ON p.id = a.player_id AND p.bot = 0
           WHERE a.match_id = m.id
             AND (a.accepted = 1
                  OR a.verdict IN ('division_by_zero', 'rule_violation', 'wrong_value',
                                   'overflow'))) >= 2
),
won AS (
    SELECT r.winner_id, r.formula, r.elapsed_ms, r.ended_at AS t
    FROM rounds r JOIN players p ON p.id = r.winner_id AND p.bot = 0
    WHERE r.outcome = 'won' AND r.match_id IN (SELECT id FROM raced)
),
periods AS (
    SELECT 'all' AS period, 0 AS start, winner_id, formula, elapsed_ms FROM won
    UNION ALL
    SELECT 'month', CAST(strftime('%s', t / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000,
           winner_id, formula, elapsed_ms FROM won
    UNION ALL
    SELECT 'week', (t / 86400000 - (t / 86400000 + 3) % 7) * 86400000,
           winner_id, formula, elapsed_ms FROM won
    UNION ALL
    SELECT 'day', t / 86400000 * 86400000, winner_id, formula, elapsed_ms FROM won
)
INSERT INTO player_stats (period, period_start, player_id, rounds_won, fastest_ms)
SELECT period, start, winner_id, count(*),
       min(CASE WHEN formula IS NOT NULL THEN elapsed_ms END)
FROM periods WHERE true
GROUP BY period, start, winner_id
ON CONFLICT (period, period_start, player_id) DO UPDATE SET
    rounds_won = excluded.rounds_won,
    fastest_ms = excluded.fastest_ms;
