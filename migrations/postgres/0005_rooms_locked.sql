-- Whether a room is locked, so a node asked for another node's locked room
-- by a stranger answers as if it did not exist (as the room itself would),
-- instead of revealing it with a redirect. Written by the room's node
-- through its directory queue.
ALTER TABLE rooms ADD COLUMN locked BOOLEAN NOT NULL DEFAULT false;
