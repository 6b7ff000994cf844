-- Ratings as players see them (docs/design.md, "Scores, ratings and
-- leaderboards"): 1500 for a new player and 60 points per unit of mu, where
-- they used to be the conservative mu - 3 sigma (0 for a new player).
--
-- The stored values were conservative ratings; mu is recovered as the value
-- plus 3 sigma with the player's sigma now: exact for the latest rating,
-- slightly low for older ones (sigma was larger then). A new player's 0 is
-- exactly 1500.

UPDATE player_stats
   SET rating = round(1500 + 60 * (rating + 3 * (SELECT r.sigma FROM ratings r
                                                  WHERE r.player_id = player_stats.player_id) - 25))
 WHERE rating IS NOT NULL
   AND player_id IN (SELECT player_id FROM ratings);

UPDATE match_players
   SET rating_before = CASE WHEN rating_before = 0 THEN 1500
                            ELSE round(1500 + 60 * (rating_before + 3 * (SELECT r.sigma FROM ratings r
                                       WHERE r.player_id = match_players.player_id) - 25)) END,
       rating_after = round(1500 + 60 * (rating_after + 3 * (SELECT r.sigma FROM ratings r
                                        WHERE r.player_id = match_players.player_id) - 25))
 WHERE rating_after IS NOT NULL
   AND player_id IN (SELECT player_id FROM ratings);
