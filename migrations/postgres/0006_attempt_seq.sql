-- Each attempt's number in its match (from 1), so a batch of writes the
-- recorder retries after a lost connection, or replays from its journal
-- after an outage, adds no attempt twice: (match_id, seq) is unique.
-- Attempts recorded before this column existed keep NULL (and NULLs never
-- collide in a unique index).
ALTER TABLE attempts ADD COLUMN seq BIGINT;
CREATE UNIQUE INDEX attempts_by_seq ON attempts (match_id, seq);
