//! Why a command was refused, and how the refusal reads on the wire.

use crate::protocol::{ErrorCode, PlayerId, ServerMessage, SettingsError, MAX_CHAT_LEN, REACTIONS};
use crate::solver::SolveError;
use crate::text::TextError;

/// What a player hears for a code that names no room they may enter: the
/// same sentence for a room that does not exist and for a locked room they
/// are not in, so a locked room cannot be found by guessing codes. The
/// server answers unknown codes with it too.
pub const ROOM_NOT_FOUND: &str = "no room has that code";

/// Why a command was refused. Nothing changed in the room.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoomError {
    /// The sender is not a member of this room.
    #[error("you are not in this room")]
    NotInRoom,
    /// A host action by someone else.
    #[error("only the host can do that")]
    NotHost,
    /// A player action by a spectator or a late joiner.
    #[error("{0}")]
    NotAPlayer(&'static str),
    /// The room's state does not allow this now.
    #[error("{0}")]
    WrongState(&'static str),
    /// A submission for another round than the current one.
    #[error("round {got} is not the current round ({current})")]
    WrongRound {
        /// The round being played (or last played).
        current: u32,
        /// The round named in the request.
        got: u32,
    },
    /// Every seat is taken.
    #[error("the room is full ({0} players)")]
    RoomFull(u32),
    /// A locked room, to someone not in it: indistinguishable from a room
    /// that does not exist.
    #[error("{ROOM_NOT_FOUND}")]
    NotFound,
    /// The spectators' places are all taken.
    #[error("the room has its {0} spectators already")]
    TooManySpectators(u32),
    /// The host removed this player from the room; they may not come back
    /// (`room_locked` on the wire).
    #[error("the host removed you from this room")]
    Banned,
    /// A chat message over the limit.
    #[error("chat messages are at most {MAX_CHAT_LEN} characters")]
    TooLong,
    /// A chat message holding a control or format character (an escape
    /// sequence, a line break, a bidi override).
    #[error(transparent)]
    HiddenText(#[from] TextError),
    /// An empty chat message.
    #[error("empty chat message")]
    EmptyChat,
    /// A reaction that is not one of the fixed few.
    #[error("unknown reaction; send one of {}", REACTIONS.join(" "))]
    UnknownReaction,
    /// Too many chat messages or reactions.
    #[error("too many messages; wait a few seconds")]
    RateLimited,
    /// Settings out of range.
    #[error(transparent)]
    InvalidSettings(#[from] SettingsError),
    /// A `kick` or `transfer_host` naming nobody in the room.
    #[error("no player {0} in this room")]
    PlayerNotFound(PlayerId),
    /// An `add_bot` in a room that has its bots already.
    #[error("a room has at most {0} bots")]
    TooManyBots(u32),
    /// A `remove_bot` naming a person (that is `kick`).
    #[error("player {0} is not a bot")]
    NotABot(PlayerId),
    /// The solver failed on a hand; should not happen with dealt hands.
    #[error("the server could not judge this hand: {0}")]
    Internal(#[from] SolveError),
}

impl RoomError {
    /// The wire error code.
    pub fn code(&self) -> ErrorCode {
        match self {
            RoomError::NotInRoom => ErrorCode::NotInRoom,
            RoomError::NotHost => ErrorCode::NotHost,
            RoomError::NotAPlayer(_) => ErrorCode::NotAPlayer,
            RoomError::WrongState(_) => ErrorCode::WrongState,
            RoomError::WrongRound { .. } => ErrorCode::WrongRound,
            RoomError::RoomFull(_) => ErrorCode::RoomFull,
            RoomError::NotFound => ErrorCode::RoomNotFound,
            RoomError::TooManySpectators(_) => ErrorCode::RoomFull,
            RoomError::Banned => ErrorCode::RoomLocked,
            RoomError::TooLong => ErrorCode::TooLong,
            RoomError::EmptyChat | RoomError::HiddenText(_) | RoomError::UnknownReaction => {
                ErrorCode::BadMessage
            }
            RoomError::RateLimited => ErrorCode::RateLimited,
            RoomError::InvalidSettings(_) => ErrorCode::InvalidSettings,
            RoomError::PlayerNotFound(_) => ErrorCode::PlayerNotFound,
            RoomError::TooManyBots(_) => ErrorCode::RoomFull,
            RoomError::NotABot(_) => ErrorCode::NotAPlayer,
            RoomError::Internal(_) => ErrorCode::Internal,
        }
    }

    /// The `error` message answering the refused request.
    pub fn to_message(&self) -> ServerMessage {
        ServerMessage::error(self.code(), self.to_string())
    }
}
