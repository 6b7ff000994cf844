-- A node of a cluster stopping gracefully hands its rooms to a live node:
-- the id of the node that should restore a saved room (NULL: whichever
-- server starts, or any live node when that one is gone). SQLite servers
-- are single nodes and leave it NULL; the column keeps both schemas alike.
ALTER TABLE saved_rooms ADD COLUMN for_node TEXT;
