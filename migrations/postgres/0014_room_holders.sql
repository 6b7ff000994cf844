-- The address (an IPv6 network as one) whose player opened each room, so
-- the rooms one address holds are counted across every node. Rooms
-- brought back at a start or taken over from a dead node hold none.
ALTER TABLE rooms ADD COLUMN holder TEXT;
CREATE INDEX rooms_by_holder ON rooms (holder) WHERE holder IS NOT NULL;
