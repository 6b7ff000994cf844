//! Why a request or a formula was refused: the `error` codes and the
//! verdict kinds.

use serde::{Deserialize, Serialize};

use crate::formula::error::{checker_kinds, kinds_enum, kinds_from};
use crate::formula::ErrorKind;

checker_kinds!(kinds_enum! {
    /// Why a formula or claim was refused: the checker's kinds plus the room's.
    pub enum VerdictKind {
        /// The sender is locked out after a wrong answer.
        LockedOut,
        /// Someone else already won the round (or time ran out).
        RoundOver,
        /// A "no solution" claim on a hand that has one.
        HasSolution,
        /// A kind this version does not know (sent by a newer server).
        #[serde(other)]
        Unknown,
    }
});
checker_kinds!(kinds_from! { ErrorKind => VerdictKind });

impl VerdictKind {
    /// A kind read back by its wire name (from a log or the database);
    /// `Unknown` for a name this version does not know.
    pub fn from_name(name: &str) -> VerdictKind {
        name.parse().unwrap_or(VerdictKind::Unknown)
    }
}

/// The reason a verdict refused a formula.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictError {
    /// What kind of mistake.
    pub kind: VerdictKind,
    /// A sentence for the player.
    pub message: String,
    /// 1-based column in the formula, where it applies.
    #[serde(default)]
    pub column: Option<usize>,
}

wire_enum! {
    /// Every error code an `error` message may carry.
    pub enum ErrorCode {
        /// Not JSON, no or unknown `type`, or missing or bad fields.
        BadMessage,
        /// `hello` named a protocol version the server does not speak.
        UnsupportedProtocol,
        /// Anything but `hello` or `ping` before `welcome`.
        NotWelcomed,
        /// A name that breaks the naming rules.
        InvalidName,
        /// A name that belongs to another player.
        NameTaken,
        /// A token the server does not know.
        BadToken,
        /// No room has that code.
        RoomNotFound,
        /// The room is on another server of the cluster that cannot be
        /// reached right now (its heartbeat is late, it is not declared
        /// gone): try again in a moment. The seat in it stays the player's.
        RoomUnreachable,
        /// Every seat is taken.
        RoomFull,
        /// The host locked the room.
        RoomLocked,
        /// A room action outside a room.
        NotInRoom,
        /// `create_room` or `join_room` while in a room.
        AlreadyInRoom,
        /// A host action by someone else.
        NotHost,
        /// A player action by a spectator (or someone waiting for the next round).
        NotAPlayer,
        /// An action the room's state does not allow now (e.g. `start` during a match).
        WrongState,
        /// A submission for a round that is not the current one.
        WrongRound,
        /// Too many messages, or too many guesses at room codes.
        RateLimited,
        /// A chat message or field longer than allowed.
        TooLong,
        /// Settings outside their allowed ranges.
        InvalidSettings,
        /// A `kick`, `transfer_host` or `around` naming nobody known.
        PlayerNotFound,
        /// A daily before `#1`, or one still to come (UTC): never dealt.
        NoSuchDay,
        /// No challenge has that id.
        ChallengeNotFound,
        /// `create_room` from an address (or IPv6 network) that already
        /// holds as many open rooms as one address may.
        TooManyRooms,
        /// A `revoke_device` naming none of the player's devices.
        DeviceNotFound,
        /// The server is at its limit of connections or rooms.
        ServerFull,
        /// The server is shutting down.
        ShuttingDown,
        /// Something failed on the server; the request may be retried.
        Internal,
        /// A code this version does not know (sent by a newer server).
        #[serde(other)]
        Unknown,
    }
}
