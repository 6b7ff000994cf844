//! What the server shows of a room: listings, snapshots, standings and
//! leaderboard rows.

use serde::{Deserialize, Serialize};

use super::{PlayerId, RoomSettings, ServerMessage};

wire_enum! {
    /// What a room is doing.
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
    /// Who has answered wrong in this round so far, in seating order (what
    /// `attempt_failed` told the room live), so a screen that joins or
    /// comes back mid-round shows who has tried. Never the formulas.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub misses: Vec<RoundMisses>,
}

/// A player's wrong answers in the round being played.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundMisses {
    /// Who.
    pub player: PlayerId,
    /// How many of their answers were judged wrong this round.
    pub count: u32,
    /// Time they are still locked out, while they are.
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
    /// The rematch's ready check, while one is open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_check: Option<ReadyCheckInfo>,
}

/// An open ready check, as a snapshot shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadyCheckInfo {
    /// Time left until the match starts anyway.
    pub ms: u64,
    /// Who is ready already.
    pub ready: Vec<PlayerId>,
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
    /// The rating after the match is still provisional (shown "1500?"):
    /// too few rated matches, or opponents, to be ranked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rating_provisional: bool,
    /// Under `everyone` scoring, the total time of the player's right
    /// answers in this match (each from its round's deal), the tiebreak
    /// between equal scores: less is ahead. Absent under `first` scoring,
    /// and for a player who left during the match (their time is not
    /// kept; they come after everyone seated on the same score).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solve_ms: Option<u64>,
}

impl Standing {
    /// A line as the room ranks it, before the server rates the match: no
    /// rating yet, and no solve time (the tiebreak of `everyone` scoring
    /// only).
    pub fn unrated(player: PlayerId, name: impl Into<String>, score: i64, rank: u32) -> Standing {
        Standing {
            player,
            name: name.into(),
            score,
            rank,
            rating_before: None,
            rating_after: None,
            rating_provisional: false,
            solve_ms: None,
        }
    }
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

wire_enum! {
    /// Why someone left a room.
    #[derive(Default)]
    pub enum LeaveReason {
        /// They left.
        #[default]
        Left,
        /// The host removed them.
        Kicked,
        /// They stayed disconnected too long and lost their seat.
        TimedOut,
    }
}
