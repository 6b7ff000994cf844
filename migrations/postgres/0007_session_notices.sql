-- The session announcements of the last minute, kept as well as sent with
-- NOTIFY: a node whose LISTEN connection broke reads the ones it missed
-- once it listens again (a notification sent while nobody listens is
-- gone). Pruned by the nodes' heartbeats.
CREATE TABLE session_notices (
    seq        BIGINT      PRIMARY KEY,
    player_id  BIGINT      NOT NULL,
    node_id    UUID        NOT NULL,
    at         TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX session_notices_by_time ON session_notices (at);
