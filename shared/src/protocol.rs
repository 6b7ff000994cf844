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

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use strum::{EnumDiscriminants, EnumIter, EnumString, IntoStaticStr, VariantNames};

use crate::formula::ErrorKind;

pub use crate::settings::{
    DealMode, Difficulty, RoomSettings, SettingsError, SettingsPatch, Variant,
};

wire_names!(
    Metric,
    Period,
    RoomPhase,
    LeaveReason,
    VerdictKind,
    ErrorCode
);

/// The protocol version this crate speaks; `hello` must carry it.
pub const PROTOCOL_VERSION: u32 = 1;

/// Longest request `id` a client may send, in characters.
pub const MAX_ID_LEN: usize = 64;

/// Longest chat message, in characters.
pub const MAX_CHAT_LEN: usize = 200;

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

// ---------------------------------------------------------------------------
// Client → server
// ---------------------------------------------------------------------------

/// Which leaderboard to show.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    Serialize,
    Deserialize,
    IntoStaticStr,
    EnumString,
    EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case", ascii_case_insensitive)]
pub enum Metric {
    /// Conservative rating (mu − 3·sigma).
    #[default]
    Rating,
    /// Matches won.
    Wins,
    /// Rounds won.
    Rounds,
    /// Best solve time.
    Fastest,
}

/// Which period a leaderboard covers (UTC calendar periods).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    Serialize,
    Deserialize,
    IntoStaticStr,
    EnumString,
    EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case", ascii_case_insensitive)]
pub enum Period {
    /// Since the beginning.
    #[default]
    All,
    /// This calendar month.
    Month,
    /// This ISO week.
    Week,
    /// Today.
    Day,
}

/// A request from a client. The doc of each variant says when it is allowed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, EnumDiscriminants)]
#[serde(tag = "type", rename_all = "snake_case")]
#[strum_discriminants(
    name(ClientMessageType),
    derive(IntoStaticStr, EnumString, EnumIter, VariantNames),
    strum(serialize_all = "snake_case")
)]
pub enum ClientMessage {
    /// First message of a connection; again with the token to resume.
    Hello {
        /// Must be [`PROTOCOL_VERSION`].
        protocol: u32,
        /// The player's name; required when there is no token.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// The secret from an earlier `welcome`, proving who the player is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        /// Set by programs that play (bots): they are marked as bots in every
        /// roster and never rated. Absent means a person.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        bot: bool,
    },
    /// Lists the public rooms.
    ListRooms,
    /// Creates a room with the sender as host; only when not in a room.
    CreateRoom {
        /// Settings differing from the defaults.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        settings: Option<SettingsPatch>,
        /// Shorthand for `settings.public`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        public: Option<bool>,
    },
    /// Joins a room by its code; only when not in a room.
    JoinRoom {
        /// The room's code (case-insensitive).
        code: String,
        /// Watch without playing.
        #[serde(default)]
        spectator: bool,
    },
    /// Leaves the current room.
    LeaveRoom,
    /// Changes settings; host only, between matches.
    UpdateSettings {
        /// The settings to change.
        settings: SettingsPatch,
    },
    /// Starts a match; host only, between matches.
    Start,
    /// A formula for the current round; players only.
    Submit {
        /// The round it answers, so a late answer cannot hit the next hand.
        round: u32,
        /// The formula as typed.
        formula: String,
    },
    /// Claims that the hand has no solution; only with `deal: any`.
    ClaimNoSolution {
        /// The round it answers.
        round: u32,
    },
    /// Says something to the room.
    Chat {
        /// At most [`MAX_CHAT_LEN`] characters.
        text: String,
    },
    /// Removes a player from the room; host only.
    Kick {
        /// Who to remove.
        player: PlayerId,
    },
    /// Closes or opens the room to new joiners; host only.
    Lock {
        /// Whether new joiners are refused.
        locked: bool,
    },
    /// Hands the host role to another seated player; host only.
    TransferHost {
        /// The new host.
        player: PlayerId,
    },
    /// Asks for a leaderboard.
    Leaderboard {
        /// Defaults to `rating`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        metric: Option<Metric>,
        /// Defaults to `all`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        period: Option<Period>,
        /// How many rows (the server caps it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
        /// Centre the rows on this player's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        around: Option<String>,
    },
    /// Keep-alive; answered by `pong`.
    Ping,
}

impl ClientMessage {
    /// Every client message `type`, for telling an unknown type from bad fields.
    pub const TYPES: &'static [&'static str] = <ClientMessageType as VariantNames>::VARIANTS;

    /// This message's `type` on the wire.
    pub fn message_type(&self) -> &'static str {
        ClientMessageType::from(self).into()
    }
}

/// A client message with its optional request id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientEnvelope {
    /// Echoed on every reply and error this request causes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The request itself.
    #[serde(flatten)]
    pub message: ClientMessage,
}

impl ClientEnvelope {
    /// A request without an id.
    pub fn new(message: ClientMessage) -> Self {
        ClientEnvelope { id: None, message }
    }

    /// The JSON text to send.
    pub fn to_json(&self) -> String {
        // Serializing these types cannot fail: every map key is a string.
        serde_json::to_string(self).unwrap_or_default()
    }
}

// ---------------------------------------------------------------------------
// Server → client
// ---------------------------------------------------------------------------

/// What a room is doing.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    IntoStaticStr,
    EnumString,
    EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case", ascii_case_insensitive)]
pub enum RoomPhase {
    /// Waiting for the host to start a match.
    Lobby,
    /// A match is about to start.
    Countdown,
    /// A round is running.
    Playing,
    /// A round is over; the next one starts shortly.
    BetweenRounds,
    /// The match is over; standings are shown. The host may start a rematch.
    Finished,
}

/// One public room in the lobby listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomSummary {
    /// The code to join it.
    pub code: String,
    /// The host's name (a listing has no roster to look an id up in).
    pub host: String,
    /// Seated players, connected or not.
    pub players: u32,
    /// Seats.
    pub max_players: u32,
    /// What it is doing.
    pub state: RoomPhase,
    /// Its settings.
    pub settings: RoomSettings,
}

/// Someone in a room, as a snapshot shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerInfo {
    /// Their id.
    pub id: PlayerId,
    /// Their name.
    pub name: String,
    /// Their score in the current (or last) match.
    pub score: i64,
    /// False while they are disconnected but keep their seat.
    pub connected: bool,
    /// Spectators watch and chat but do not play.
    pub spectator: bool,
    /// Seated during a round: they play from the next round.
    #[serde(default)]
    pub waiting: bool,
    /// A program said `bot` in its `hello`: never rated, never on a board.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
}

/// The hand being played, as a snapshot shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundInfo {
    /// 1-based round number.
    pub number: u32,
    /// The value to make.
    pub objective: i64,
    /// The cards to combine.
    pub cards: Vec<i64>,
    /// Time left in the round (0 once it is over).
    pub remaining_ms: u64,
    /// The round's full length.
    pub duration_ms: u64,
    /// Time the receiver is still locked out after a wrong answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locked_out_ms: Option<u64>,
}

/// A full picture of a room: everything a client needs to draw it from
/// scratch (on joining, on resuming, and when the roster or settings change).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoomSnapshot {
    /// The room's code.
    pub code: String,
    /// The host's id.
    pub host: PlayerId,
    /// Current settings.
    pub settings: RoomSettings,
    /// What the room is doing.
    pub state: RoomPhase,
    /// Whether new joiners are refused.
    pub locked: bool,
    /// Players and spectators, in seating order.
    pub players: Vec<PlayerInfo>,
    /// The current or last round of the match, if one was dealt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<RoundInfo>,
    /// Rounds in the match.
    pub rounds_total: u32,
    /// Time until the countdown or the pause between rounds ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_ms: Option<u64>,
    /// The latest room events (chat, results, arrivals), oldest first, so a
    /// resuming client can refill its feed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recent: Vec<ServerMessage>,
}

/// One player's score after a round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreEntry {
    /// Whose score.
    pub player: PlayerId,
    /// Their score in this match.
    pub score: i64,
}

/// One line of the final standings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    /// Who.
    pub player: PlayerId,
    /// Their name.
    pub name: String,
    /// Final score.
    pub score: i64,
    /// 1-based; equal scores share a rank ("1, 1, 3").
    pub rank: u32,
    /// Conservative rating before the match, once the server has rated it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_before: Option<f64>,
    /// Conservative rating after the match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_after: Option<f64>,
}

/// One row of a leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaderboardRow {
    /// 1-based; equal values share a rank.
    pub rank: u32,
    /// Who.
    pub player: PlayerId,
    /// Their name.
    pub name: String,
    /// The metric's value: rating, wins, rounds won, or best time in ms.
    pub value: f64,
    /// Rated matches played in the period.
    pub matches: u32,
}

/// Why someone left a room.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    Serialize,
    Deserialize,
    IntoStaticStr,
    EnumString,
    EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case", ascii_case_insensitive)]
pub enum LeaveReason {
    /// They left.
    #[default]
    Left,
    /// The host removed them.
    Kicked,
    /// They stayed disconnected too long and lost their seat.
    TimedOut,
}

/// Why a formula or claim was refused: the checker's kinds plus the room's.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    IntoStaticStr,
    EnumString,
    EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case", ascii_case_insensitive)]
pub enum VerdictKind {
    /// Unexpected character, unbalanced parenthesis, missing operand or operator.
    Syntax,
    /// The formula is longer than 200 characters.
    TooLong,
    /// The formula nests more than 32 levels of parentheses.
    TooDeep,
    /// A number that is not a card of the hand.
    UnknownCard,
    /// A card used more often than it was dealt.
    CardReused,
    /// Cards left unused.
    CardUnused,
    /// Division by zero.
    DivisionByZero,
    /// An intermediate result the room's rule set forbids.
    RuleViolation,
    /// The formula does not make the objective.
    WrongValue,
    /// A value too large to compute exactly.
    Overflow,
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

impl VerdictKind {
    /// A kind read back by its wire name (from a log or the database);
    /// `Unknown` for a name this version does not know.
    pub fn from_name(name: &str) -> VerdictKind {
        name.parse().unwrap_or(VerdictKind::Unknown)
    }
}

impl From<ErrorKind> for VerdictKind {
    /// The checker's refusals are verdict kinds of the same name.
    fn from(kind: ErrorKind) -> VerdictKind {
        match kind {
            ErrorKind::Syntax => VerdictKind::Syntax,
            ErrorKind::TooLong => VerdictKind::TooLong,
            ErrorKind::TooDeep => VerdictKind::TooDeep,
            ErrorKind::UnknownCard => VerdictKind::UnknownCard,
            ErrorKind::CardReused => VerdictKind::CardReused,
            ErrorKind::CardUnused => VerdictKind::CardUnused,
            ErrorKind::DivisionByZero => VerdictKind::DivisionByZero,
            ErrorKind::RuleViolation => VerdictKind::RuleViolation,
            ErrorKind::WrongValue => VerdictKind::WrongValue,
            ErrorKind::Overflow => VerdictKind::Overflow,
        }
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

/// Every error code an `error` message may carry.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    IntoStaticStr,
    EnumString,
    EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case", ascii_case_insensitive)]
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

/// A message from the server. Replies to a request carry its id in the envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, EnumDiscriminants)]
#[serde(tag = "type", rename_all = "snake_case")]
#[strum_discriminants(
    name(ServerMessageType),
    derive(IntoStaticStr, EnumString, EnumIter, VariantNames),
    strum(serialize_all = "snake_case")
)]
pub enum ServerMessage {
    /// Reply to `hello`: who the client is from now on.
    Welcome {
        /// The protocol version the server speaks.
        protocol: u32,
        /// The player's id.
        player_id: PlayerId,
        /// The player's name as stored.
        name: String,
        /// The secret to keep and send in later `hello`s.
        token: String,
        /// The server's program version.
        server_version: String,
        /// Whether this connection took over a seat the player still held.
        resumed: bool,
        /// Base addresses (`http://192.168.1.20:7878`) a friend on the same
        /// network can use to reach this server: add `/ws` for the protocol,
        /// `/r/CODE` for a room in the browser. Empty when unknown.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        join_urls: Vec<String>,
    },
    /// Reply to `list_rooms`.
    Rooms {
        /// The public rooms.
        rooms: Vec<RoomSummary>,
    },
    /// A full snapshot of the room.
    RoomState(RoomSnapshot),
    /// A match begins (after a short countdown the first round starts).
    MatchStarted {
        /// Rounds in the match.
        rounds_total: u32,
        /// The settings it is played with.
        settings: RoomSettings,
        /// How long until the first round is dealt.
        countdown_ms: u64,
    },
    /// A hand is dealt; the race is on.
    RoundStarted {
        /// 1-based round number.
        round: u32,
        /// The value to make.
        objective: i64,
        /// The cards to combine.
        cards: Vec<i64>,
        /// How long the round lasts.
        duration_ms: u64,
    },
    /// The judgement of the sender's formula or claim (to the sender only).
    Verdict {
        /// The round it answered.
        round: u32,
        /// True: it won the round.
        accepted: bool,
        /// The formula's exact value ("17" or "17/3"), when it had one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<String>,
        /// Why it was refused.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<VerdictError>,
        /// How long the sender is now locked out.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        locked_out_ms: Option<u64>,
    },
    /// Someone's attempt failed (the formula stays secret).
    AttemptFailed {
        /// The round.
        round: u32,
        /// Who failed.
        player: PlayerId,
        /// Their score after any `wrong_penalty`.
        #[serde(default)]
        score: i64,
    },
    /// Someone won the round.
    RoundWon {
        /// The round.
        round: u32,
        /// The winner.
        winner: PlayerId,
        /// The winning formula; `null` for a right "no solution" claim.
        formula: Option<String>,
        /// Whether the round was won by a right "no solution" claim.
        no_solution: bool,
        /// Time from the deal to the winning answer.
        elapsed_ms: u64,
        /// Points the winner got.
        points: i64,
        /// Every player's score after the round.
        scores: Vec<ScoreEntry>,
    },
    /// Time ran out without a winner.
    RoundTimedOut {
        /// The round.
        round: u32,
        /// One solution, or `null` when the hand had none.
        solution: Option<String>,
        /// How many distinct solutions the hand had.
        solutions: u64,
    },
    /// The match is over.
    MatchOver {
        /// Final standings, best first.
        standings: Vec<Standing>,
    },
    /// A chat message.
    Chat {
        /// The speaker's id.
        from: PlayerId,
        /// The speaker's name.
        name: String,
        /// What they said.
        text: String,
    },
    /// Someone joined the room.
    PlayerJoined {
        /// Who.
        player: PlayerId,
        /// Their name.
        name: String,
        /// Whether they joined as a spectator.
        #[serde(default)]
        spectator: bool,
        /// Whether they are a bot.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        bot: bool,
    },
    /// Someone left the room (sent to them too when they were kicked).
    PlayerLeft {
        /// Who.
        player: PlayerId,
        /// Their name.
        name: String,
        /// Why.
        #[serde(default)]
        reason: LeaveReason,
    },
    /// Reply to `leaderboard`.
    Leaderboard {
        /// Which metric.
        metric: Metric,
        /// Which period.
        period: Period,
        /// The rows, best first.
        rows: Vec<LeaderboardRow>,
    },
    /// Reply to `ping`.
    Pong,
    /// A request failed, or the server has bad news.
    Error {
        /// Machine-readable reason.
        code: ErrorCode,
        /// A sentence for a person.
        message: String,
    },
}

impl ServerMessage {
    /// Every server message `type`.
    pub const TYPES: &'static [&'static str] = <ServerMessageType as VariantNames>::VARIANTS;

    /// This message's `type` on the wire.
    pub fn message_type(&self) -> &'static str {
        ServerMessageType::from(self).into()
    }

    /// An `error` message.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> ServerMessage {
        ServerMessage::Error {
            code,
            message: message.into(),
        }
    }
}

/// A server message with the id of the request it answers, if any.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerEnvelope {
    /// The id of the request this replies to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The message itself.
    #[serde(flatten)]
    pub message: ServerMessage,
}

impl ServerEnvelope {
    /// A message that answers no request.
    pub fn new(message: ServerMessage) -> Self {
        ServerEnvelope { id: None, message }
    }

    /// A reply to the request with `id`.
    pub fn reply(id: Option<String>, message: ServerMessage) -> Self {
        ServerEnvelope { id, message }
    }

    /// The JSON text to send.
    pub fn to_json(&self) -> String {
        // Serializing these types cannot fail: every map key is a string and
        // ratings are finite.
        serde_json::to_string(self).unwrap_or_default()
    }
}

// ---------------------------------------------------------------------------
// Parsing at the edge
// ---------------------------------------------------------------------------

/// What was wrong with an incoming message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolErrorKind {
    /// The text is not JSON.
    #[error("not valid JSON: {0}")]
    InvalidJson(String),
    /// The JSON is not an object.
    #[error("a message must be a JSON object")]
    NotAnObject,
    /// The object has no string `type`.
    #[error("the message has no \"type\" string")]
    MissingType,
    /// `type` names no message of this protocol.
    #[error("unknown message type {0:?}")]
    UnknownType(String),
    /// `id` is not a string of at most 64 characters.
    #[error("\"id\" must be a string of at most {MAX_ID_LEN} characters")]
    BadId,
    /// A known type whose fields are missing or of the wrong kind.
    #[error("bad {message_type:?} message: {detail}")]
    BadFields {
        /// The message's type.
        message_type: String,
        /// What serde found wrong, e.g. "missing field `round`".
        detail: String,
    },
}

/// An incoming message that could not be understood, with the request id
/// when one could be read, so the `bad_message` error can echo it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct ProtocolError {
    /// The request's id, if it had a valid one.
    pub id: Option<String>,
    /// What was wrong.
    pub kind: ProtocolErrorKind,
}

impl ProtocolError {
    /// The error code to answer with (always `bad_message`).
    pub fn code(&self) -> ErrorCode {
        ErrorCode::BadMessage
    }

    /// The `error` reply, with the request's id.
    pub fn to_envelope(&self) -> ServerEnvelope {
        ServerEnvelope::reply(
            self.id.clone(),
            ServerMessage::error(self.code(), self.kind.to_string()),
        )
    }
}

/// An incoming object taken apart: its id, its type and its other fields.
type Opened = (Option<String>, String, Map<String, Value>);

/// Splits an object into its id and the rest, checking the id and the type.
fn open_envelope(text: &str, known: &[&str]) -> Result<Opened, ProtocolError> {
    let fail = |id: Option<String>, kind| ProtocolError { id, kind };
    let value: Value = serde_json::from_str(text)
        .map_err(|e| fail(None, ProtocolErrorKind::InvalidJson(e.to_string())))?;
    let Value::Object(mut map) = value else {
        return Err(fail(None, ProtocolErrorKind::NotAnObject));
    };
    let id = match map.remove("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.chars().count() <= MAX_ID_LEN => Some(s),
        Some(_) => return Err(fail(None, ProtocolErrorKind::BadId)),
    };
    let message_type = match map.get("type") {
        Some(Value::String(t)) => t.clone(),
        _ => return Err(fail(id, ProtocolErrorKind::MissingType)),
    };
    if !known.contains(&message_type.as_str()) {
        return Err(fail(id, ProtocolErrorKind::UnknownType(message_type)));
    }
    Ok((id, message_type, map))
}

fn decode<T: serde::de::DeserializeOwned>(
    id: Option<String>,
    message_type: String,
    map: Map<String, Value>,
) -> Result<(Option<String>, T), ProtocolError> {
    match serde_json::from_value(Value::Object(map)) {
        Ok(m) => Ok((id, m)),
        Err(e) => Err(ProtocolError {
            id,
            kind: ProtocolErrorKind::BadFields {
                message_type,
                detail: e.to_string(),
            },
        }),
    }
}

/// Parses one text frame from a client.
pub fn parse_client_message(text: &str) -> Result<ClientEnvelope, ProtocolError> {
    let (id, t, map) = open_envelope(text, ClientMessage::TYPES)?;
    decode(id, t, map).map(|(id, message)| ClientEnvelope { id, message })
}

/// Parses one text frame from the server (for clients).
pub fn parse_server_message(text: &str) -> Result<ServerEnvelope, ProtocolError> {
    let (id, t, map) = open_envelope(text, ServerMessage::TYPES)?;
    decode(id, t, map).map(|(id, message)| ServerEnvelope { id, message })
}
