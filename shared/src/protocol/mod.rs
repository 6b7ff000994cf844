//! The wire protocol, version 1: every message between `krypto-server` and
//! its clients, as serde types shared by both sides so they cannot drift.
//!
//! One JSON object per WebSocket text frame, tagged by `"type"` (snake_case).
//! A client may add `"id"` (a string of at most [`MAX_ID_LEN`] characters) to
//! a request; the server's replies and errors caused by it carry the same id.
//! That id lives in the envelope ([`ClientEnvelope`], [`ServerEnvelope`]), not
//! in the messages, so the game logic never sees transport details.
//!
//! Unknown fields are ignored everywhere, so later versions may add fields.
//! Incoming text goes through [`parse_client_message`], which tells invalid
//! JSON, a missing or unknown `type`, a bad `id` and bad fields apart, each
//! with a message precise enough to send back in a `bad_message` error.
//!
//! Durations are milliseconds (`*_ms`) and never the server's wall clock, so
//! clock skew between machines does not matter.
//!
//! Its files: `client` (requests and their envelope), `server` (replies and
//! events and theirs), `snapshot` (rooms, standings and leaderboard rows as
//! the server shows them), `codes` (why a request or a formula is refused), `devices` (the devices
//! a player controls),
//! `modes` (what the daily's, runs' and challenges' messages carry) and
//! `parse` (text frames into typed messages or typed errors). Room
//! settings are [`crate::settings`]'s, re-exported here. [`close`] names the
//! WebSocket close codes the server ends connections with, and [`limits`]
//! gathers every number a client checks or shows before the server would
//! refuse (the browser reads it as a module the server generates).

use std::fmt;

use serde::{Deserialize, Serialize};

mod client;
pub mod close;
mod codes;
mod devices;
pub mod limits;
mod modes;
mod parse;
mod recap;
mod server;
mod snapshot;

pub use client::{ClientEnvelope, ClientMessage, ClientMessageType, Metric, Period};
pub use codes::{ErrorCode, VerdictError, VerdictKind};
pub use devices::{device_label, DeviceInfo, MAX_DEVICE_LABEL_CHARS, UNNAMED_DEVICE};
pub use modes::{ChallengeOutcome, SolutionEntry, Timed};
// A challenge's code is parsed at the edge like every other field.
pub use crate::modes::challenge::ChallengeCode;
pub use parse::{parse_client_message, parse_server_message, ProtocolError, ProtocolErrorKind};
pub use recap::{
    MatchRecap, PrunedMisses, RecapAttempt, RecapStanding, RoundRecap, SolutionMarks,
    MAX_RECAP_ATTEMPTS, MAX_RECAP_SOLUTIONS,
};
pub use server::{RoundWin, ServerEnvelope, ServerMessage, ServerMessageType};
pub use snapshot::{
    LeaderboardRow, LeaveReason, PlayerInfo, ReadyCheckInfo, RoomPhase, RoomSnapshot, RoomSummary,
    RoundInfo, RoundMisses, ScoreEntry, Standing,
};
// Room settings live in their own module; the wire carries them unchanged.
pub use crate::settings::{
    DealMode, Difficulty, RoomSettings, Scoring, SettingsError, SettingsPatch, Variant,
};

/// The protocol version this crate speaks; `hello` must carry it.
pub const PROTOCOL_VERSION: u32 = 1;

/// Longest request `id` a client may send, in characters.
pub const MAX_ID_LEN: usize = 64;

/// Longest chat message, in characters.
pub const MAX_CHAT_LEN: usize = 200;

/// Characters in a room code (`create_room` answers one, `join_room`
/// takes one).
pub const ROOM_CODE_LEN: usize = 5;

/// Most rooms in one `rooms` reply: a 30-byte `list_rooms` never costs the
/// server hundreds of kilobytes; the rest are a `next` away.
pub const ROOMS_PAGE: usize = 50;

/// The reactions a member may send (`react`): a fixed few, never free text,
/// so a reaction cannot carry anything to another player's screen.
pub const REACTIONS: [&str; 6] = ["👏", "🎉", "😮", "😂", "🔥", "🤯"];

/// Redirects a client follows in a row without getting a seat before it
/// gives up: nodes that disagree about where a room lives cannot bounce a
/// client for ever.
pub const MAX_REDIRECTS_IN_A_ROW: u32 = 5;

/// A player's permanent identity: the database id of their row.
///
/// A newtype so a player id is never mistaken for a score or a round number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PlayerId(pub i64);

impl fmt::Display for PlayerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
