//! Server → client: every reply and event, and the envelope that carries
//! the id of the request it answers.

use crate::rules::Rules;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use strum::{EnumDiscriminants, EnumIter, EnumString, IntoStaticStr, VariantNames};

use super::{
    ChallengeCode, ChallengeOutcome, DeviceInfo, Difficulty, ErrorCode, LeaderboardRow,
    LeaveReason, Metric, Period, PlayerId, RoomSettings, RoomSnapshot, RoomSummary, ScoreEntry,
    SolutionEntry, Standing, Timed, VerdictError,
};

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
    /// Reply to `list_rooms`: one page of the public rooms, by code.
    Rooms {
        /// The public rooms, at most [`crate::protocol::ROOMS_PAGE`].
        rooms: Vec<RoomSummary>,
        /// There are more: send `list_rooms` with `after` set to this for
        /// the next page. Absent on the last page.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        next: Option<String>,
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
        /// Who won it and how (its fields are the message's).
        #[serde(flatten)]
        win: RoundWin,
        /// Every player's score after the round.
        scores: Vec<ScoreEntry>,
    },
    /// With `scoring: everyone`, a right answer that scored while the round
    /// goes on (its formula is not shown: others are still solving).
    Solved {
        /// The round.
        round: u32,
        /// Who solved it.
        player: PlayerId,
        /// From the deal to the answer.
        elapsed_ms: u64,
        /// Points it scored (3, 2, 1, then 1 by its order).
        points: i64,
        /// Their score now.
        score: i64,
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
        /// The match's id, for its recap (`GET /api/matches/{id}`, the
        /// page `/m/{id}`); absent when the match was not recorded.
        #[serde(rename = "match", default, skip_serializing_if = "Option::is_none")]
        match_id: Option<String>,
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
    /// A member's reaction (one of [`REACTIONS`](super::REACTIONS)), to
    /// float by on screens; not kept in the room's recent events.
    Reaction {
        /// Who reacted.
        player: PlayerId,
        /// Their name.
        name: String,
        /// The emoji.
        emoji: String,
    },
    /// The host asked for a rematch: each seated player confirms with
    /// `ready`; the match starts when every connected player is ready, or
    /// when `ms` run out.
    ReadyCheck {
        /// Time left until the match starts anyway.
        ms: u64,
        /// Who is ready already.
        ready: Vec<PlayerId>,
    },
    /// A player said they are ready for the rematch.
    PlayerReady {
        /// Who.
        player: PlayerId,
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
    /// The room asked for (by `join_room`, or the seat a `hello` resumes)
    /// lives on another node of this server: connect to `url`, send `hello`
    /// with the same token, then `join_room` with `code` (a held seat is
    /// resumed by the `hello` itself).
    Redirect {
        /// That node's public WebSocket URL (`ws://host-b:7878/ws`).
        url: String,
        /// The room's code.
        code: String,
        /// A single-use ticket for this player, living seconds: a client
        /// that cannot carry its token to that node (a browser page on
        /// another origin) sends it in `hello.ticket` there instead.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ticket: Option<String>,
    },
    /// Reply to `link_device`: a code to type (or scan) on another device,
    /// which signs that device in as this player once (`hello.ticket`).
    /// Asking again replaces the code.
    DeviceCode {
        /// The code, `K7QX-M2PD` (case, dash and spaces do not matter).
        code: String,
        /// How long it lives.
        expires_ms: u64,
        /// A QR code (SVG) of `BASE/link#CODE`, when the request named a
        /// base.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        qr_svg: Option<String>,
    },
    /// Reply to `devices` and `revoke_device`: every device that signs in
    /// as this player, oldest first.
    Devices {
        /// The devices.
        devices: Vec<DeviceInfo>,
    },
    /// Another device signed in as this player for the first time (sent
    /// to the connection it replaces, and after `welcome` to each device
    /// that has not said hello since): "not you? revoke it".
    DeviceAdded {
        /// The new device.
        device: DeviceInfo,
    },
    /// Reply to `daily_start`: the day's hand, and the clock that has been
    /// running since it was first sent to this player.
    Daily {
        /// `#1` is the server's first day.
        number: u32,
        /// The UTC day, `YYYY-MM-DD`.
        date: NaiveDate,
        /// The value to make.
        objective: i64,
        /// The cards to combine.
        cards: Vec<i64>,
        /// The time on the player's clock now, penalties included.
        elapsed_ms: u64,
        /// Whether the result counts (streak, the day's board): today's
        /// hand only.
        rated: bool,
    },
    /// The daily is solved (after the right answer's `verdict`, and again
    /// to a player asking for a day already solved).
    DailySolved {
        /// The day's number.
        number: u32,
        /// The final time, penalties included.
        elapsed_ms: u64,
        /// Wrong answers.
        misses: u32,
        /// Consecutive UTC days solved, this one included; 0 when unrated.
        streak: u32,
        /// The player's place on the day's board; `null` when unrated.
        rank: Option<u32>,
        /// The share line, giving nothing away (`Krypto #312 ✓ 0:42 · 1
        /// miss · 🔥5` and the server's link on a second line).
        share: String,
        /// Every distinct solution of the hand, the player's own marked.
        solutions: Vec<SolutionEntry>,
    },
    /// Reply to `run_start` (a run begins on its first hand) and to
    /// `run_resume` (the run in play, on the hand on the table).
    Run {
        /// The hand's number in the run (1 at the start).
        hand: u32,
        /// The value to make.
        objective: i64,
        /// The cards to combine.
        cards: Vec<i64>,
        /// The clock a run starts with.
        duration_ms: u64,
        /// Time left on the clock.
        remaining_ms: u64,
        /// Hands solved so far.
        score: u32,
        /// Right answers in a row.
        combo: u32,
    },
    /// The run's next hand, after a right or wrong answer.
    RunHand {
        /// The hand's number in the run.
        hand: u32,
        /// The value to make.
        objective: i64,
        /// The cards to combine.
        cards: Vec<i64>,
        /// Time left on the clock, bonuses and penalties included.
        remaining_ms: u64,
        /// Hands solved so far.
        score: u32,
        /// Right answers in a row (0 after a wrong one).
        combo: u32,
        /// Time the combo just added (left out when none).
        #[serde(default, skip_serializing_if = "is_zero")]
        bonus_ms: u64,
    },
    /// The run's clock ran out.
    RunOver {
        /// Hands solved.
        score: u32,
        /// Wrong answers.
        misses: u32,
        /// The longest combo.
        best_combo: u32,
        /// How long the run lasted, bonuses and penalties included.
        duration_ms: u64,
    },
    /// Reply to `challenge_create`: the challenge's code, for the link
    /// `/c/CODE`.
    Challenge {
        /// The code.
        code: ChallengeCode,
    },
    /// Reply to `challenge_start`: the challenge's hand, and the clock that
    /// has been running since it was first sent to this player.
    ChallengeHand {
        /// The challenge's code.
        code: ChallengeCode,
        /// The challenger's name.
        by: String,
        /// The value to make.
        objective: i64,
        /// The cards to combine.
        cards: Vec<i64>,
        /// The rule set answers are judged under.
        rules: Rules,
        /// The time on the player's clock now, penalties included.
        elapsed_ms: u64,
        /// The challenger's result.
        to_beat: Timed,
    },
    /// The challenge is solved (after the right answer's `verdict`): both
    /// results side by side.
    ChallengeResult {
        /// The challenge's code.
        code: ChallengeCode,
        /// The challenger's name.
        by: String,
        /// The player's result.
        yours: Timed,
        /// The challenger's result.
        theirs: Timed,
        /// How the player did against the challenger.
        outcome: ChallengeOutcome,
    },
    /// A practice hand: the reply to `practice_start`, and the next hand
    /// after a right answer or a skip. Nothing of its solutions is sent
    /// before the player asks (`practice_hint`, `practice_skip`).
    Practice {
        /// The hand's number at this table (1 for the first).
        hand: u32,
        /// The value to make.
        objective: i64,
        /// The cards to combine.
        cards: Vec<i64>,
        /// The band the table deals from.
        difficulty: Difficulty,
        /// How many hints the hand has (the steps of one solution: one
        /// fewer than the cards).
        steps: u32,
    },
    /// Reply to `practice_hint`: the next step of one solution of the hand.
    PracticeHint {
        /// The hand it is for.
        hand: u32,
        /// The step, `8 × 3 = 24`: two numbers (cards, or results of
        /// earlier steps) and their exact result (`7/2` for a fraction);
        /// the last step makes the objective.
        step: String,
        /// Steps shown so far on this hand, this one included.
        steps_shown: u32,
        /// Steps in all.
        steps: u32,
    },
    /// A practice hand is over (solved, or skipped): every distinct
    /// solution under the table's rules; the next `practice` follows.
    PracticeSolutions {
        /// The hand's number.
        hand: u32,
        /// The value it made.
        objective: i64,
        /// Its cards.
        cards: Vec<i64>,
        /// Solved (true) or skipped.
        solved: bool,
        /// Hints shown before it ended.
        hints: u32,
        /// Every distinct solution, the player's own marked when solved.
        solutions: Vec<SolutionEntry>,
    },
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

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A won round: what the room records of it, and what `round_won` says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundWin {
    /// The round.
    pub round: u32,
    /// The winner.
    pub winner: PlayerId,
    /// The winning formula; `null` for a right "no solution" claim.
    pub formula: Option<String>,
    /// Whether the round was won by a right "no solution" claim.
    pub no_solution: bool,
    /// Time from the deal to the winning answer.
    pub elapsed_ms: u64,
    /// Points the winner got.
    pub points: i64,
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

    /// The JSON text to send. Serializing fails only on a bug (a map with
    /// keys that are not strings); the server logs it and closes the
    /// connections that would have missed the message (`close::INTERNAL_ERROR`).
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }
}
