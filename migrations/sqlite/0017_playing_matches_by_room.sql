-- A node declared dead has its matches still in play recorded abandoned
-- (server/src/cluster/heartbeat.rs): the directory's reap finds them by
-- room code among the matches playing. Only those few rows are indexed, so
-- finished matches (nearly all of them) cost nothing.
CREATE INDEX matches_playing_by_room ON matches (room_code) WHERE status = 'playing';
