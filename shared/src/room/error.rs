//! Why a command was refused, and how the refusal reads on the wire.

use crate::protocol::{ErrorCode, PlayerId, ServerMessage, SettingsError, MAX_CHAT_LEN};

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
    /// The host locked the room, or removed this player from it.
    #[error("{0}")]
    RoomLocked(&'static str),
    /// A chat message over the limit.
    #[error("chat messages are at most {MAX_CHAT_LEN} characters")]
    TooLong,
    /// An empty chat message.
    #[error("empty chat message")]
    EmptyChat,
    /// Too many chat messages.
    #[error("too many messages; wait a few seconds")]
    RateLimited,
    /// Settings out of range.
    #[error(transparent)]
    InvalidSettings(#[from] SettingsError),
    /// A `kick` or `transfer_host` naming nobody in the room.
    #[error("no player {0} in this room")]
    PlayerNotFound(PlayerId),
    /// The solver failed on a hand; should not happen with dealt hands.
    #[error("the server could not judge this hand: {0}")]
    Internal(String),
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
            RoomError::RoomLocked(_) => ErrorCode::RoomLocked,
            RoomError::TooLong => ErrorCode::TooLong,
            RoomError::EmptyChat => ErrorCode::BadMessage,
            RoomError::RateLimited => ErrorCode::RateLimited,
            RoomError::InvalidSettings(_) => ErrorCode::InvalidSettings,
            RoomError::PlayerNotFound(_) => ErrorCode::PlayerNotFound,
            RoomError::Internal(_) => ErrorCode::Internal,
        }
    }

    /// The `error` message answering the refused request.
    pub fn to_message(&self) -> ServerMessage {
        ServerMessage::error(self.code(), self.to_string())
    }
}
