-- Rooms saved by a server stopping gracefully, to be restored (and resumed
-- by their players) when a server starts again. A row lives from the
-- shutdown to the next start, which takes and deletes it.
CREATE TABLE saved_rooms (
    -- The room's code.
    code      TEXT    PRIMARY KEY,
    -- JSON: the room's whole state (krypto-core's `SavedRoom`) and what its
    -- recording needs to carry on (the match id, the hand being played).
    state     TEXT    NOT NULL,
    -- When it was saved, UTC milliseconds.
    saved_at  BIGINT  NOT NULL
);
