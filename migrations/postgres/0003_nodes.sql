-- Many nodes on one database (started with --public-url): each room lives
-- on one node, and these tables say which. Single-node servers never touch
-- them. Times are the database's own clock (now()), so the nodes' clocks
-- may disagree without harm.

-- The nodes: each inserts its row at start and refreshes `heartbeat_at`
-- every few seconds; a row whose heartbeat is older than the node timeout
-- is a dead node, and any live node deletes it (its rooms go with it).
CREATE TABLE nodes (
    id            UUID        PRIMARY KEY,
    -- Where clients reach it (ws:// or wss://, validated at start): the
    -- only address a redirect ever carries.
    public_url    TEXT        NOT NULL,
    started_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    heartbeat_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- Stopping: keeps its rooms' players but gets no rooms handed to it.
    draining      BOOLEAN     NOT NULL DEFAULT false
);
CREATE INDEX nodes_by_heartbeat ON nodes (heartbeat_at);

-- The room directory: codes are unique across nodes because a node
-- inserts the code before it opens the room (a conflict: draw another).
CREATE TABLE rooms (
    code        TEXT        PRIMARY KEY,
    node_id     UUID        NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    public      BOOLEAN     NOT NULL DEFAULT false,
    -- The lobby listing entry of a public room (protocol's RoomSummary),
    -- published by its node every heartbeat when it changed.
    summary     JSONB,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX rooms_by_node ON rooms (node_id);
CREATE INDEX rooms_public ON rooms (code) WHERE public;

-- Where each player holds a seat (player or spectator), so a `hello` on
-- any node can send them to their room. Written in batches by the room's
-- node. No foreign key to `nodes`: when a node dies its seats stay, marked
-- `orphaned_at`, for as long as a dropped player's seat is held, so a
-- player coming back is told their room is gone rather than nothing.
CREATE TABLE seats (
    player_id    BIGINT      PRIMARY KEY,
    code         TEXT        NOT NULL,
    node_id      UUID        NOT NULL,
    orphaned_at  TIMESTAMPTZ
);
CREATE INDEX seats_by_node ON seats (node_id);
CREATE INDEX seats_by_code ON seats (code);
CREATE INDEX seats_orphaned ON seats (orphaned_at) WHERE orphaned_at IS NOT NULL;

-- Orders `hello`s across nodes: a session announced with a higher number
-- replaces one with a lower number wherever it is (LISTEN/NOTIFY).
CREATE SEQUENCE session_seq;
