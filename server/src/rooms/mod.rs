//! Rooms: the registry of rooms, seats, spectators and sessions (the
//! lobby), room codes, one task per room owning the pure
//! `krypto_core::room::Room` and its clock, the handle through which anyone
//! sends to a connection, rooms kept across a stop, the server's own bots
//! a host seats, and the last round each seated player solved (for
//! challenges of a room's hand).

pub(crate) mod bots;
pub(crate) mod clock;
pub(crate) mod directory_queue;
pub(crate) mod lobby;
pub(crate) mod outbox;
pub(crate) mod room_codes;
pub(crate) mod saving;
pub(crate) mod services;
pub(crate) mod solves;
pub(crate) mod task;
pub mod wall_clock;
