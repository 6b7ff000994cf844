-- Which version of krypto-core's name key (`names::KEY_VERSION`) the
-- stored `players.name_key` values were made with. The server recomputes
-- every key at start when its version is newer (server/src/db/name_keys.rs):
-- SQL cannot compute a Unicode confusable skeleton. Keys stored before this
-- table existed are version 1.
CREATE TABLE name_key_version (
    version INTEGER NOT NULL
);
INSERT INTO name_key_version (version) VALUES (1);
