//! A room's game logic with no I/O and no clock: settings, roster, rounds,
//! arbitration, scores and timers.
//!
//! One task per room owns a [`Room`] and feeds it commands one at a time, in
//! the order the server received them; that order alone decides who answered
//! first. Every method takes `now`, a monotonic millisecond counter chosen by
//! the caller (the server uses the time since it started; tests use plain
//! numbers), and returns [`Effects`]: the messages to send to whom, and the
//! [`RoomEvent`]s to record. Between commands the task sleeps until
//! [`Room::next_deadline`] and then calls [`Room::tick`].
//!
//! The contract with the caller:
//! - record `effects.events` (and commit them) *before* sending
//!   `effects.messages`, so that a result a client was told survives a crash;
//! - a command refused with `Err(RoomError)` changed nothing; answer the
//!   sender with [`RoomError::to_message`] (or use [`Room::handle`], which does
//!   that for every room-level client message);
//! - `effects.removed` lists players no longer in the room (left, kicked,
//!   seat timed out): detach their connections from it;
//! - `match_over` carries no ratings; the caller may fill in `rating_before`
//!   and `rating_after` after recording [`RoomEvent::MatchFinished`].
//!
//! Timings: a 3 s countdown before the first round, a 4 s pause between
//! rounds, seats kept 60 s after a disconnection, chat limited to 5 messages
//! per 10 s per member. A round won scores 1 point; a wrong answer costs
//! `wrong_penalty` points (scores may go negative).

use std::collections::{HashSet, VecDeque};
use std::fmt;

use rand_chacha::ChaCha20Rng;

use crate::cards::{secure_rng, seeded_rng, Deal, Deck};
use crate::protocol::{
    ClientMessage, DealMode, Difficulty, ErrorCode, LeaveReason, PlayerId, PlayerInfo, RoomPhase,
    RoomSettings, RoomSnapshot, RoomSummary, RoundInfo, ScoreEntry, ServerMessage, SettingsError,
    SettingsPatch, Standing, Variant, VerdictError, VerdictKind, MAX_CHAT_LEN,
};
use crate::rational::Rational;
use crate::rules::Rules;

/// Time from `start` to the first deal, so everyone can get ready.
pub const COUNTDOWN_MS: u64 = 3_000;
/// Pause between a round's result and the next deal, to read the result.
pub const BETWEEN_ROUNDS_MS: u64 = 4_000;
/// How long a disconnected member keeps their seat and score.
pub const SEAT_HOLD_MS: u64 = 60_000;
/// Chat flood limit: at most this many messages…
pub const CHAT_BURST: usize = 5;
/// …within this window, per member.
pub const CHAT_WINDOW_MS: u64 = 10_000;
/// Points for winning a round.
pub const ROUND_POINTS: i64 = 1;
/// How many recent events a snapshot carries for a resuming client's feed.
pub const RECENT_EVENTS: usize = 20;

// ---------------------------------------------------------------------------
// Outputs
// ---------------------------------------------------------------------------

/// Who a message is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Recipient {
    /// One member (or the player whose request is being answered).
    Player(PlayerId),
    /// Every member of the room, players and spectators.
    All,
    /// Every member except one (who usually got a reply of their own).
    AllExcept(PlayerId),
}

/// A message to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    /// Who gets it.
    pub to: Recipient,
    /// What they get.
    pub message: ServerMessage,
    /// Whether it answers the request being handled: the server then puts
    /// the request's `id` on it.
    pub reply: bool,
}

impl Outgoing {
    fn to(to: Recipient, message: ServerMessage) -> Self {
        Outgoing {
            to,
            message,
            reply: false,
        }
    }

    fn reply(player: PlayerId, message: ServerMessage) -> Self {
        Outgoing {
            to: Recipient::Player(player),
            message,
            reply: true,
        }
    }
}

/// Something that happened in the room that the server records.
#[derive(Debug, Clone, PartialEq)]
pub enum RoomEvent {
    /// A match began with these seated players.
    MatchStarted {
        /// The settings it is played with.
        settings: RoomSettings,
        /// The players seated at the start, in seating order.
        players: Vec<PlayerId>,
    },
    /// A hand was dealt.
    RoundStarted {
        /// 1-based round number.
        round: u32,
        /// The value to make.
        objective: i64,
        /// The cards.
        cards: Vec<i64>,
    },
    /// A formula or a "no solution" claim was judged.
    Attempt {
        /// The round.
        round: u32,
        /// Who tried.
        player: PlayerId,
        /// The formula; `None` for a "no solution" claim.
        formula: Option<String>,
        /// Whether it won the round.
        accepted: bool,
        /// Why it was refused.
        error: Option<VerdictKind>,
        /// Time since the deal.
        elapsed_ms: u64,
    },
    /// Someone won a round.
    RoundWon {
        /// The round.
        round: u32,
        /// The winner.
        winner: PlayerId,
        /// The winning formula; `None` for a right "no solution" claim.
        formula: Option<String>,
        /// Whether a right "no solution" claim won it.
        no_solution: bool,
        /// Time from the deal to the winning answer.
        elapsed_ms: u64,
        /// Points awarded.
        points: i64,
    },
    /// A round ran out of time.
    RoundTimedOut {
        /// The round.
        round: u32,
        /// The solution revealed, if any.
        solution: Option<String>,
        /// How many distinct solutions the hand had.
        solutions: u64,
    },
    /// The match ended normally.
    MatchFinished(MatchResult),
    /// Every player left during the match; it ends without a result.
    MatchAbandoned,
}

/// The outcome of a finished match, for the database and the ratings.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchResult {
    /// The settings it was played with.
    pub settings: RoomSettings,
    /// Rounds actually played (fewer than `settings.rounds` when someone
    /// reached the target score).
    pub rounds_played: u32,
    /// Final standings, best first; ties share a rank. Players who left
    /// during the match are included with the score they had.
    pub standings: Vec<Standing>,
}

/// What a command or a tick produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Effects {
    /// Messages to send, in order.
    pub messages: Vec<Outgoing>,
    /// Events to record (before sending the messages).
    pub events: Vec<RoomEvent>,
    /// Players no longer in the room.
    pub removed: Vec<PlayerId>,
}

impl Effects {
    fn send(&mut self, to: Recipient, message: ServerMessage) {
        self.messages.push(Outgoing::to(to, message));
    }

    fn reply(&mut self, player: PlayerId, message: ServerMessage) {
        self.messages.push(Outgoing::reply(player, message));
    }

    /// Whether there is nothing to send or record.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty() && self.events.is_empty() && self.removed.is_empty()
    }

    /// The `match_over` message, if any, so the server can add ratings.
    pub fn match_over_mut(&mut self) -> Option<&mut Vec<Standing>> {
        self.messages.iter_mut().find_map(|o| match &mut o.message {
            ServerMessage::MatchOver { standings } => Some(standings),
            _ => None,
        })
    }
}

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

// ---------------------------------------------------------------------------
// Dealing
// ---------------------------------------------------------------------------

/// Supplies the hands of a room, so tests and replays can be deterministic.
pub trait Dealer: fmt::Debug + Send {
    /// The next hand for a room with `settings`.
    fn deal(&mut self, settings: &RoomSettings) -> Deal;
}

/// Difficulty bands by number of distinct solutions (under the room's
/// rules): `hard` up to `hard_max`, `medium` up to `medium_max`, `easy`
/// above.
///
/// Calibrated on 3,000 seeded random deals per variant (release build,
/// `count_solutions`): solvable Krypto hands have a median of 21 distinct
/// solutions (33rd percentile 15, 67th 31) under free rules and 19 (13, 28)
/// under integer and international rules; solvable 24 hands have a median of
/// 2 (33rd percentile 2, 67th 3). The bands split each variant's solvable
/// hands into roughly equal thirds; recalibrate if the solver's notion of
/// "distinct" changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DifficultyBands {
    /// Most solutions a `hard` hand has.
    pub hard_max: u64,
    /// Most solutions a `medium` hand has.
    pub medium_max: u64,
}

impl DifficultyBands {
    /// The bands for `variant`.
    pub const fn for_variant(variant: Variant) -> DifficultyBands {
        match variant {
            Variant::Krypto => DifficultyBands {
                hard_max: 14,
                medium_max: 30,
            },
            Variant::TwentyFour => DifficultyBands {
                hard_max: 1,
                medium_max: 3,
            },
        }
    }

    /// The band of a solvable hand with `solutions` distinct solutions.
    pub const fn classify(&self, solutions: u64) -> Difficulty {
        if solutions <= self.hard_max {
            Difficulty::Hard
        } else if solutions <= self.medium_max {
            Difficulty::Medium
        } else {
            Difficulty::Easy
        }
    }
}

/// The band of a solvable `variant` hand with `solutions` distinct solutions.
pub fn difficulty_of(variant: Variant, solutions: u64) -> Difficulty {
    DifficultyBands::for_variant(variant).classify(solutions)
}

/// Deals random hands, re-dealing until the room's `deal` and `difficulty`
/// settings are met (or [`RandomDealer::MAX_TRIES`] deals were tried, when it
/// settles for the last solvable one).
#[derive(Debug)]
pub struct RandomDealer {
    rng: ChaCha20Rng,
}

impl RandomDealer {
    /// Deals tried before settling for a hand outside the difficulty band.
    pub const MAX_TRIES: usize = 500;

    /// Unpredictable hands, for live games.
    pub fn secure() -> Self {
        RandomDealer { rng: secure_rng() }
    }

    /// Reproducible hands, for tests and replays.
    pub fn seeded(seed: u64) -> Self {
        RandomDealer {
            rng: seeded_rng(seed),
        }
    }

    fn raw(&mut self, variant: Variant) -> Deal {
        match variant {
            Variant::Krypto => Deal::krypto(&mut self.rng),
            Variant::TwentyFour => Deal {
                objective: 24,
                hand: Deck::twenty_four().draw(4, &mut self.rng),
            },
        }
    }
}

impl Dealer for RandomDealer {
    fn deal(&mut self, settings: &RoomSettings) -> Deal {
        let mut fallback: Option<Deal> = None;
        let mut last = None;
        for _ in 0..Self::MAX_TRIES {
            let deal = self.raw(settings.variant);
            last = Some(deal.clone());
            let rules = settings.rules;
            if settings.difficulty == Difficulty::Any {
                match settings.deal {
                    DealMode::Any => return deal,
                    DealMode::Solvable => {
                        if referee::solvable(&deal.hand, deal.objective, rules) {
                            return deal;
                        }
                        continue;
                    }
                }
            }
            match referee::count(&deal.hand, deal.objective, rules) {
                Ok(0) if settings.deal == DealMode::Any => return deal,
                Ok(0) | Err(_) => continue,
                Ok(n) if difficulty_of(settings.variant, n) == settings.difficulty => return deal,
                Ok(_) => {
                    fallback.get_or_insert(deal);
                }
            }
        }
        match (fallback, last) {
            (Some(deal), _) | (None, Some(deal)) => deal,
            (None, None) => self.raw(settings.variant),
        }
    }
}

/// Deals a fixed list of hands in order, starting over at the end: for tests
/// and replays. An empty list deals an empty hand.
#[derive(Debug, Clone)]
pub struct ScriptedDealer {
    hands: Vec<Deal>,
    next: usize,
}

impl ScriptedDealer {
    /// Deals `hands` in order.
    pub fn new(hands: Vec<Deal>) -> Self {
        ScriptedDealer { hands, next: 0 }
    }
}

impl Dealer for ScriptedDealer {
    fn deal(&mut self, _settings: &RoomSettings) -> Deal {
        let Some(deal) = self.hands.get(self.next % self.hands.len().max(1)) else {
            return Deal {
                objective: 0,
                hand: Vec::new(),
            };
        };
        self.next += 1;
        deal.clone()
    }
}

/// The checker and the solver, behind the few calls the room makes: the
/// same checker as `krypto check`, so a verdict never differs from it.
mod referee {
    use super::*;
    use crate::{formula, solver};

    /// Judges a formula; the error is already in wire form.
    pub(super) fn check(
        formula: &str,
        cards: &[i64],
        target: i64,
        rules: Rules,
    ) -> Result<Rational, VerdictError> {
        formula::check(formula, cards, target, rules).map_err(|e| VerdictError {
            kind: e.kind.into(),
            message: e.message,
            column: e.column,
        })
    }

    /// One solution, printed, or `None` when there is none.
    pub(super) fn solve_one(
        cards: &[i64],
        target: i64,
        rules: Rules,
    ) -> Result<Option<String>, String> {
        solver::solve_one(cards, target, rules)
            .map(|found| found.map(|e| e.to_string()))
            .map_err(|e| e.to_string())
    }

    /// Whether the hand has a solution (a solver failure counts as no).
    pub(super) fn solvable(cards: &[i64], target: i64, rules: Rules) -> bool {
        matches!(solver::solve_one(cards, target, rules), Ok(Some(_)))
    }

    /// The number of distinct solutions.
    pub(super) fn count(cards: &[i64], target: i64, rules: Rules) -> Result<u64, String> {
        solver::count_solutions(cards, target, rules)
            .map(|n| n as u64)
            .map_err(|e| e.to_string())
    }
}

// ---------------------------------------------------------------------------
// The room
// ---------------------------------------------------------------------------

/// Someone in the room.
#[derive(Debug, Clone)]
struct Member {
    id: PlayerId,
    name: String,
    /// Spectators watch and chat but never score.
    spectator: bool,
    /// When they dropped, if they are disconnected; the seat is released
    /// [`SEAT_HOLD_MS`] later.
    disconnected_at: Option<u64>,
    /// Score in the current (or last) match.
    score: i64,
    /// First round of the current match they may answer: late joiners wait
    /// for the next deal.
    eligible_from: u32,
    /// No answers accepted before this time (after a wrong one).
    locked_until: u64,
    /// Times of their recent chat messages, for the flood limit.
    chat_times: VecDeque<u64>,
}

impl Member {
    fn connected(&self) -> bool {
        self.disconnected_at.is_none()
    }
}

/// The hand being played (or last played) in the current match.
#[derive(Debug, Clone)]
struct Round {
    number: u32,
    deal: Deal,
    started_at: u64,
    deadline: u64,
    /// Won or timed out: later answers get "round over".
    over: bool,
}

/// What the room is doing; deadlines are absolute `now` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Lobby,
    Countdown { until: u64 },
    Playing,
    BetweenRounds { until: u64 },
    Finished,
}

/// A player who left during the match: they still appear in its standings,
/// so leaving cannot dodge a loss.
#[derive(Debug, Clone)]
struct Departed {
    id: PlayerId,
    name: String,
    score: i64,
}

/// One room: its roster, settings and the match being played. See the module
/// documentation for how the server drives it.
#[derive(Debug)]
pub struct Room {
    code: String,
    settings: RoomSettings,
    host: PlayerId,
    locked: bool,
    /// In seating order, so the first is the longest seated.
    members: Vec<Member>,
    /// Players the host kicked; they may not come back.
    banned: HashSet<PlayerId>,
    phase: Phase,
    round: Option<Round>,
    departed: Vec<Departed>,
    dealer: Box<dyn Dealer>,
    recent: VecDeque<ServerMessage>,
    /// When the last member left.
    empty_since: Option<u64>,
    /// Effects produced by time passing during a command that was then
    /// refused; delivered by the next call.
    pending: Effects,
}

impl Room {
    /// A new room in its lobby with `host` seated as its first player. The
    /// effects hold the host's first snapshot.
    pub fn new(
        code: impl Into<String>,
        host: PlayerId,
        host_name: impl Into<String>,
        settings: RoomSettings,
        dealer: Box<dyn Dealer>,
        now: u64,
    ) -> Result<(Room, Effects), RoomError> {
        settings.validate()?;
        let mut room = Room {
            code: code.into(),
            settings,
            host,
            locked: false,
            members: Vec::new(),
            banned: HashSet::new(),
            phase: Phase::Lobby,
            round: None,
            departed: Vec::new(),
            dealer,
            recent: VecDeque::new(),
            empty_since: None,
            pending: Effects::default(),
        };
        room.members
            .push(Member::new(host, host_name.into(), false, 0));
        let mut fx = Effects::default();
        fx.reply(host, ServerMessage::RoomState(room.snapshot_for(host, now)));
        Ok((room, fx))
    }

    // -- queries ----------------------------------------------------------

    /// The room's code.
    pub fn code(&self) -> &str {
        &self.code
    }

    /// Current settings.
    pub fn settings(&self) -> &RoomSettings {
        &self.settings
    }

    /// The host's id.
    pub fn host(&self) -> PlayerId {
        self.host
    }

    /// Whether new joiners are refused.
    pub fn is_locked(&self) -> bool {
        self.locked
    }

    /// What the room is doing.
    pub fn phase(&self) -> RoomPhase {
        match self.phase {
            Phase::Lobby => RoomPhase::Lobby,
            Phase::Countdown { .. } => RoomPhase::Countdown,
            Phase::Playing => RoomPhase::Playing,
            Phase::BetweenRounds { .. } => RoomPhase::BetweenRounds,
            Phase::Finished => RoomPhase::Finished,
        }
    }

    /// Whether `player` is in the room (seated, spectating, or disconnected
    /// but still holding a seat).
    pub fn is_member(&self, player: PlayerId) -> bool {
        self.member(player).is_some()
    }

    /// Every member's id, in seating order.
    pub fn members(&self) -> Vec<PlayerId> {
        self.members.iter().map(|m| m.id).collect()
    }

    /// Number of seated players (not spectators), connected or not.
    pub fn player_count(&self) -> u32 {
        self.members.iter().filter(|m| !m.spectator).count() as u32
    }

    /// Since when the room has had no members at all; the lobby closes it
    /// after a grace period.
    pub fn is_empty_since(&self) -> Option<u64> {
        self.empty_since
    }

    /// The lobby listing entry.
    pub fn summary(&self) -> RoomSummary {
        RoomSummary {
            code: self.code.clone(),
            host: self
                .member(self.host)
                .map(|m| m.name.clone())
                .unwrap_or_default(),
            players: self.player_count(),
            max_players: self.settings.max_players,
            state: self.phase(),
            settings: self.settings.clone(),
        }
    }

    /// The full picture of the room as `viewer` sees it.
    pub fn snapshot_for(&self, viewer: PlayerId, now: u64) -> RoomSnapshot {
        let round_no = self.round.as_ref().map_or(0, |r| r.number);
        let players = self
            .members
            .iter()
            .map(|m| PlayerInfo {
                id: m.id,
                name: m.name.clone(),
                score: m.score,
                connected: m.connected(),
                spectator: m.spectator,
                waiting: !m.spectator && self.phase == Phase::Playing && m.eligible_from > round_no,
                bot: false,
            })
            .collect();
        let round = self.round.as_ref().map(|r| {
            let live = self.phase == Phase::Playing && !r.over;
            let locked_out_ms = self
                .member(viewer)
                .map(|m| m.locked_until.saturating_sub(now))
                .filter(|&ms| live && ms > 0);
            RoundInfo {
                number: r.number,
                objective: r.deal.objective,
                cards: r.deal.hand.clone(),
                remaining_ms: if live {
                    r.deadline.saturating_sub(now)
                } else {
                    0
                },
                duration_ms: r.deadline - r.started_at,
                locked_out_ms,
            }
        });
        let next_ms = match self.phase {
            Phase::Countdown { until } | Phase::BetweenRounds { until } => {
                Some(until.saturating_sub(now))
            }
            _ => None,
        };
        RoomSnapshot {
            code: self.code.clone(),
            host: self.host,
            settings: self.settings.clone(),
            state: self.phase(),
            locked: self.locked,
            players,
            round,
            rounds_total: self.settings.rounds,
            next_ms,
            recent: self.recent.iter().cloned().collect(),
        }
    }

    /// When [`Room::tick`] next has something to do: the end of the
    /// countdown, the round or the pause, or a held seat's release.
    pub fn next_deadline(&self) -> Option<u64> {
        if !self.pending.is_empty() {
            return Some(0);
        }
        self.next_due()
    }

    // -- time ---------------------------------------------------------------

    /// Lets time pass up to `now`: ends countdowns, rounds and pauses, deals
    /// hands and releases seats whose hold ran out.
    pub fn tick(&mut self, now: u64) -> Effects {
        self.advance(now);
        std::mem::take(&mut self.pending)
    }

    /// Processes every deadline up to `now` into `self.pending`.
    fn advance(&mut self, now: u64) {
        let mut fx = std::mem::take(&mut self.pending);
        // Each step moves a deadline strictly forward or removes it, so this
        // ends; the bound is a guard against a logic error, not a limit.
        for _ in 0..10_000 {
            let Some(due) = self.next_due() else { break };
            if due > now {
                break;
            }
            self.fire(due, &mut fx);
        }
        self.pending = fx;
    }

    /// The earliest deadline, ignoring pending effects.
    fn next_due(&self) -> Option<u64> {
        let phase = match self.phase {
            Phase::Countdown { until } | Phase::BetweenRounds { until } => Some(until),
            Phase::Playing => self.round.as_ref().map(|r| r.deadline),
            Phase::Lobby | Phase::Finished => None,
        };
        let seats = self
            .members
            .iter()
            .filter_map(|m| m.disconnected_at.map(|t| t + SEAT_HOLD_MS));
        phase.into_iter().chain(seats).min()
    }

    /// Handles the deadline at `at` (events happen at their due time, not
    /// when the tick arrived, so elapsed times and the next deadlines do not
    /// drift with a late tick).
    fn fire(&mut self, at: u64, fx: &mut Effects) {
        // Seats first: a player whose hold ran out is gone before the round
        // logic looks at the roster.
        let expired: Vec<PlayerId> = self
            .members
            .iter()
            .filter(|m| m.disconnected_at.is_some_and(|t| t + SEAT_HOLD_MS <= at))
            .map(|m| m.id)
            .collect();
        if !expired.is_empty() {
            for id in expired {
                self.remove(id, LeaveReason::TimedOut, at, fx);
            }
            return;
        }
        match self.phase {
            Phase::Countdown { until } if until <= at => self.deal_round(1, until, fx),
            Phase::BetweenRounds { until } if until <= at => {
                let next = self.round.as_ref().map_or(1, |r| r.number + 1);
                self.deal_round(next, until, fx);
            }
            Phase::Playing => {
                if let Some(r) = &self.round {
                    if r.deadline <= at {
                        self.time_out(r.deadline, fx);
                    }
                }
            }
            _ => {}
        }
    }

    fn deal_round(&mut self, number: u32, at: u64, fx: &mut Effects) {
        let deal = self.dealer.deal(&self.settings);
        let duration = u64::from(self.settings.round_seconds) * 1000;
        for m in &mut self.members {
            m.locked_until = 0;
        }
        fx.events.push(RoomEvent::RoundStarted {
            round: number,
            objective: deal.objective,
            cards: deal.hand.clone(),
        });
        fx.send(
            Recipient::All,
            ServerMessage::RoundStarted {
                round: number,
                objective: deal.objective,
                cards: deal.hand.clone(),
                duration_ms: duration,
            },
        );
        self.round = Some(Round {
            number,
            deal,
            started_at: at,
            deadline: at + duration,
            over: false,
        });
        self.phase = Phase::Playing;
    }

    fn time_out(&mut self, at: u64, fx: &mut Effects) {
        let Some(round) = self.round.as_mut() else {
            return;
        };
        round.over = true;
        let (number, cards, target) = (round.number, round.deal.hand.clone(), round.deal.objective);
        let rules = self.settings.rules;
        let solution = referee::solve_one(&cards, target, rules).ok().flatten();
        let solutions = if solution.is_some() {
            referee::count(&cards, target, rules).unwrap_or(0)
        } else {
            0
        };
        fx.events.push(RoomEvent::RoundTimedOut {
            round: number,
            solution: solution.clone(),
            solutions,
        });
        let msg = ServerMessage::RoundTimedOut {
            round: number,
            solution,
            solutions,
        };
        self.remember(msg.clone());
        fx.send(Recipient::All, msg);
        self.end_round(at, fx);
    }

    /// After a round is won or timed out: the match ends, or a pause.
    fn end_round(&mut self, at: u64, fx: &mut Effects) {
        let number = self.round.as_ref().map_or(0, |r| r.number);
        let target_reached = self
            .settings
            .target_score
            .is_some_and(|t| self.members.iter().any(|m| !m.spectator && m.score >= t));
        if number >= self.settings.rounds || target_reached {
            self.finish_match(number, fx);
        } else {
            self.phase = Phase::BetweenRounds {
                until: at + BETWEEN_ROUNDS_MS,
            };
        }
    }

    fn finish_match(&mut self, rounds_played: u32, fx: &mut Effects) {
        let mut rows: Vec<(PlayerId, String, i64)> = self
            .members
            .iter()
            .filter(|m| !m.spectator && m.eligible_from <= rounds_played)
            .map(|m| (m.id, m.name.clone(), m.score))
            .chain(
                self.departed
                    .iter()
                    .map(|d| (d.id, d.name.clone(), d.score)),
            )
            .collect();
        // Stable: equal scores keep seating order.
        rows.sort_by_key(|r| std::cmp::Reverse(r.2));
        let standings: Vec<Standing> = rows
            .iter()
            .map(|(id, name, score)| Standing {
                player: *id,
                name: name.clone(),
                score: *score,
                rank: 1 + rows.iter().filter(|r| r.2 > *score).count() as u32,
                rating_before: None,
                rating_after: None,
            })
            .collect();
        fx.events.push(RoomEvent::MatchFinished(MatchResult {
            settings: self.settings.clone(),
            rounds_played,
            standings: standings.clone(),
        }));
        let msg = ServerMessage::MatchOver { standings };
        self.remember(msg.clone());
        fx.send(Recipient::All, msg);
        self.phase = Phase::Finished;
        self.departed.clear();
    }

    // -- roster -------------------------------------------------------------

    /// `player` joins (or, if they still hold a seat, comes back).
    pub fn join(
        &mut self,
        player: PlayerId,
        name: impl Into<String>,
        spectator: bool,
        now: u64,
    ) -> Result<Effects, RoomError> {
        self.advance(now);
        if self.is_member(player) {
            return self.reconnect(player, now);
        }
        if self.banned.contains(&player) {
            return Err(RoomError::RoomLocked("the host removed you from this room"));
        }
        if self.locked {
            return Err(RoomError::RoomLocked("the room is locked"));
        }
        if !spectator && self.player_count() >= self.settings.max_players {
            return Err(RoomError::RoomFull(self.settings.max_players));
        }
        let name = name.into();
        let eligible_from = match (self.phase, &self.round) {
            (Phase::Playing, Some(r)) => r.number + 1,
            _ => 0,
        };
        let mut member = Member::new(player, name.clone(), spectator, eligible_from);
        // Someone who left this match and comes back gets their score back.
        if let Some(i) = self.departed.iter().position(|d| d.id == player) {
            if !spectator {
                member.score = self.departed.remove(i).score;
            }
        }
        self.members.push(member);
        self.empty_since = None;
        // Someone arriving in a room that emptied takes it over.
        if !self.is_member(self.host) {
            if let Some(next) = self.successor() {
                self.host = next;
            }
        }
        let mut fx = std::mem::take(&mut self.pending);
        let msg = ServerMessage::PlayerJoined {
            player,
            name,
            spectator,
            bot: false,
        };
        self.remember(msg.clone());
        fx.send(Recipient::AllExcept(player), msg);
        self.broadcast_state(Some(player), now, &mut fx);
        Ok(fx)
    }

    /// `player`'s connection dropped: they keep their seat and score for
    /// [`SEAT_HOLD_MS`].
    pub fn disconnect(&mut self, player: PlayerId, now: u64) -> Effects {
        self.advance(now);
        let mut fx = std::mem::take(&mut self.pending);
        if let Some(m) = self.member_mut(player) {
            if m.disconnected_at.is_none() {
                m.disconnected_at = Some(now);
                self.broadcast_state(None, now, &mut fx);
            }
        }
        fx
    }

    /// `player` is back (with their token) while holding a seat: they get a
    /// full snapshot, and the others see them connected again.
    pub fn reconnect(&mut self, player: PlayerId, now: u64) -> Result<Effects, RoomError> {
        self.advance(now);
        let m = self.member_mut(player).ok_or(RoomError::NotInRoom)?;
        m.disconnected_at = None;
        let mut fx = std::mem::take(&mut self.pending);
        self.broadcast_state(Some(player), now, &mut fx);
        Ok(fx)
    }

    /// `player` leaves for good.
    pub fn leave(&mut self, player: PlayerId, now: u64) -> Result<Effects, RoomError> {
        self.advance(now);
        if !self.is_member(player) {
            return Err(RoomError::NotInRoom);
        }
        let mut fx = std::mem::take(&mut self.pending);
        self.remove(player, LeaveReason::Left, now, &mut fx);
        Ok(fx)
    }

    /// Host only: removes `target`, who may not come back.
    pub fn kick(
        &mut self,
        host: PlayerId,
        target: PlayerId,
        now: u64,
    ) -> Result<Effects, RoomError> {
        self.advance(now);
        self.require_host(host)?;
        if target == host {
            return Err(RoomError::WrongState(
                "the host cannot kick themselves; use leave_room",
            ));
        }
        if !self.is_member(target) {
            return Err(RoomError::PlayerNotFound(target));
        }
        self.banned.insert(target);
        let mut fx = std::mem::take(&mut self.pending);
        self.remove(target, LeaveReason::Kicked, now, &mut fx);
        Ok(fx)
    }

    /// Host only: closes the room to new joiners (or opens it again). People
    /// holding a seat can always come back.
    pub fn lock(&mut self, host: PlayerId, locked: bool, now: u64) -> Result<Effects, RoomError> {
        self.advance(now);
        self.require_host(host)?;
        self.locked = locked;
        let mut fx = std::mem::take(&mut self.pending);
        self.broadcast_state(Some(host), now, &mut fx);
        Ok(fx)
    }

    /// Host only: hands the host role to another seated player.
    pub fn transfer_host(
        &mut self,
        host: PlayerId,
        target: PlayerId,
        now: u64,
    ) -> Result<Effects, RoomError> {
        self.advance(now);
        self.require_host(host)?;
        let m = self
            .member(target)
            .ok_or(RoomError::PlayerNotFound(target))?;
        if m.spectator {
            return Err(RoomError::NotAPlayer("a spectator cannot be the host"));
        }
        self.host = target;
        let mut fx = std::mem::take(&mut self.pending);
        self.broadcast_state(Some(host), now, &mut fx);
        Ok(fx)
    }

    /// Removes a member, hands on the host role, and abandons a match with
    /// no players left.
    fn remove(&mut self, player: PlayerId, reason: LeaveReason, now: u64, fx: &mut Effects) {
        let Some(i) = self.members.iter().position(|m| m.id == player) else {
            return;
        };
        let m = self.members.remove(i);
        let in_match = !matches!(self.phase, Phase::Lobby | Phase::Finished);
        let played = self.round.as_ref().map_or(0, |r| r.number);
        if in_match && !m.spectator && m.eligible_from <= played.max(1) {
            self.departed.push(Departed {
                id: m.id,
                name: m.name.clone(),
                score: m.score,
            });
        }
        let msg = ServerMessage::PlayerLeft {
            player,
            name: m.name,
            reason,
        };
        self.remember(msg.clone());
        fx.send(Recipient::All, msg.clone());
        // `All` no longer reaches them: a leaver gets the notice as the reply
        // to `leave_room`, a kicked player as their notice.
        match reason {
            LeaveReason::Left => fx.reply(player, msg),
            LeaveReason::Kicked => fx.send(Recipient::Player(player), msg),
            LeaveReason::TimedOut => {}
        }
        fx.removed.push(player);
        if self.members.is_empty() {
            self.empty_since = Some(now);
        }
        if self.host == player {
            if let Some(next) = self.successor() {
                self.host = next;
            }
        }
        if in_match && self.player_count() == 0 {
            self.phase = Phase::Lobby;
            self.round = None;
            self.departed.clear();
            fx.events.push(RoomEvent::MatchAbandoned);
        }
        self.broadcast_state(None, now, fx);
    }

    /// Longest-seated connected player, else any player, else a spectator.
    fn successor(&self) -> Option<PlayerId> {
        let pick = |f: &dyn Fn(&Member) -> bool| self.members.iter().find(|m| f(m)).map(|m| m.id);
        pick(&|m| !m.spectator && m.connected())
            .or_else(|| pick(&|m| !m.spectator))
            .or_else(|| pick(&|m| m.connected()))
            .or_else(|| self.members.first().map(|m| m.id))
    }

    // -- match --------------------------------------------------------------

    /// Host only, between matches: changes settings.
    pub fn update_settings(
        &mut self,
        host: PlayerId,
        patch: &SettingsPatch,
        now: u64,
    ) -> Result<Effects, RoomError> {
        self.advance(now);
        self.require_host(host)?;
        self.require_between_matches()?;
        let settings = self.settings.patched(patch)?;
        if settings.max_players < self.player_count() {
            return Err(RoomError::InvalidSettings(SettingsError {
                field: "max_players",
                reason: format!("{} players are already seated", self.player_count()),
            }));
        }
        self.settings = settings;
        // Back to the lobby: the last match's hand no longer applies.
        self.phase = Phase::Lobby;
        self.round = None;
        let mut fx = std::mem::take(&mut self.pending);
        self.broadcast_state(Some(host), now, &mut fx);
        Ok(fx)
    }

    /// Host only, between matches: starts a match after a short countdown.
    pub fn start(&mut self, host: PlayerId, now: u64) -> Result<Effects, RoomError> {
        self.advance(now);
        self.require_host(host)?;
        self.require_between_matches()?;
        if self.player_count() == 0 {
            return Err(RoomError::WrongState("a match needs at least one player"));
        }
        for m in &mut self.members {
            m.score = 0;
            m.eligible_from = 0;
            m.locked_until = 0;
        }
        self.departed.clear();
        self.round = None;
        self.phase = Phase::Countdown {
            until: now + COUNTDOWN_MS,
        };
        let mut fx = std::mem::take(&mut self.pending);
        fx.events.push(RoomEvent::MatchStarted {
            settings: self.settings.clone(),
            players: self
                .members
                .iter()
                .filter(|m| !m.spectator)
                .map(|m| m.id)
                .collect(),
        });
        let msg = ServerMessage::MatchStarted {
            rounds_total: self.settings.rounds,
            settings: self.settings.clone(),
            countdown_ms: COUNTDOWN_MS,
        };
        self.remember(msg.clone());
        fx.send(Recipient::All, msg);
        // Scores were reset: everyone redraws the roster.
        self.broadcast_state(Some(host), now, &mut fx);
        Ok(fx)
    }

    /// A formula for `round`. The first right one wins the round.
    pub fn submit(
        &mut self,
        player: PlayerId,
        round: u32,
        formula: &str,
        now: u64,
    ) -> Result<Effects, RoomError> {
        self.attempt(player, round, Some(formula), now)
    }

    /// A "no solution" claim for `round` (only with `deal: any`).
    pub fn claim_no_solution(
        &mut self,
        player: PlayerId,
        round: u32,
        now: u64,
    ) -> Result<Effects, RoomError> {
        self.attempt(player, round, None, now)
    }

    fn attempt(
        &mut self,
        player: PlayerId,
        round_no: u32,
        formula: Option<&str>,
        now: u64,
    ) -> Result<Effects, RoomError> {
        self.advance(now);
        let m = self.member(player).ok_or(RoomError::NotInRoom)?;
        if m.spectator {
            return Err(RoomError::NotAPlayer("spectators cannot answer"));
        }
        let eligible_from = m.eligible_from;
        let locked_until = m.locked_until;
        if formula.is_none() && self.settings.deal != DealMode::Any {
            return Err(RoomError::WrongState(
                "\"no solution\" claims need the setting deal: any",
            ));
        }
        let (current, over, started_at) = match (&self.phase, &self.round) {
            (Phase::Playing | Phase::BetweenRounds { .. } | Phase::Finished, Some(r)) => {
                (r.number, r.over, r.started_at)
            }
            _ => return Err(RoomError::WrongState("no round is being played")),
        };
        if round_no != current {
            return Err(RoomError::WrongRound {
                current,
                got: round_no,
            });
        }
        let mut fx = std::mem::take(&mut self.pending);
        let elapsed_ms = now.saturating_sub(started_at);
        let refuse =
            |kind: VerdictKind, message: &str, locked_out_ms: Option<u64>| ServerMessage::Verdict {
                round: current,
                accepted: false,
                value: None,
                error: Some(VerdictError {
                    kind,
                    message: message.to_owned(),
                    column: None,
                }),
                locked_out_ms,
            };
        if over {
            fx.events.push(RoomEvent::Attempt {
                round: current,
                player,
                formula: formula.map(str::to_owned),
                accepted: false,
                error: Some(VerdictKind::RoundOver),
                elapsed_ms,
            });
            fx.reply(
                player,
                refuse(VerdictKind::RoundOver, "this round is already over", None),
            );
            return Ok(fx);
        }
        if eligible_from > current {
            self.pending = fx;
            return Err(RoomError::NotAPlayer(
                "you joined during this round; you play from the next one",
            ));
        }
        if now < locked_until {
            let left = locked_until - now;
            fx.events.push(RoomEvent::Attempt {
                round: current,
                player,
                formula: formula.map(str::to_owned),
                accepted: false,
                error: Some(VerdictKind::LockedOut),
                elapsed_ms,
            });
            fx.reply(
                player,
                refuse(
                    VerdictKind::LockedOut,
                    &format!(
                        "locked out for {}.{} more seconds",
                        left / 1000,
                        left % 1000 / 100
                    ),
                    Some(left),
                ),
            );
            return Ok(fx);
        }
        let Some(round) = self.round.as_ref() else {
            return Ok(fx);
        };
        let (cards, target, rules) = (
            round.deal.hand.clone(),
            round.deal.objective,
            self.settings.rules,
        );
        let verdict: Result<Option<Rational>, VerdictError> = match formula {
            Some(f) => referee::check(f, &cards, target, rules).map(Some),
            None => match referee::solve_one(&cards, target, rules) {
                Ok(None) => Ok(None),
                Ok(Some(_)) => Err(VerdictError {
                    kind: VerdictKind::HasSolution,
                    message: "this hand has a solution".into(),
                    column: None,
                }),
                Err(e) => {
                    self.pending = fx;
                    return Err(RoomError::Internal(e));
                }
            },
        };
        match verdict {
            Ok(value) => {
                fx.events.push(RoomEvent::Attempt {
                    round: current,
                    player,
                    formula: formula.map(str::to_owned),
                    accepted: true,
                    error: None,
                    elapsed_ms,
                });
                fx.reply(
                    player,
                    ServerMessage::Verdict {
                        round: current,
                        accepted: true,
                        value: value.map(|v| v.to_string()),
                        error: None,
                        locked_out_ms: None,
                    },
                );
                self.win(player, formula, elapsed_ms, now, &mut fx);
            }
            Err(error) => {
                let lockout = u64::from(self.settings.lockout_seconds) * 1000;
                let penalty = i64::from(self.settings.wrong_penalty);
                let score = match self.member_mut(player) {
                    Some(m) => {
                        m.locked_until = now + lockout;
                        m.score -= penalty;
                        m.score
                    }
                    None => 0,
                };
                fx.events.push(RoomEvent::Attempt {
                    round: current,
                    player,
                    formula: formula.map(str::to_owned),
                    accepted: false,
                    error: Some(error.kind),
                    elapsed_ms,
                });
                fx.reply(
                    player,
                    ServerMessage::Verdict {
                        round: current,
                        accepted: false,
                        value: None,
                        error: Some(error),
                        locked_out_ms: (lockout > 0).then_some(lockout),
                    },
                );
                fx.send(
                    Recipient::AllExcept(player),
                    ServerMessage::AttemptFailed {
                        round: current,
                        player,
                        score,
                    },
                );
            }
        }
        Ok(fx)
    }

    fn win(
        &mut self,
        player: PlayerId,
        formula: Option<&str>,
        elapsed_ms: u64,
        now: u64,
        fx: &mut Effects,
    ) {
        let Some(round) = self.round.as_mut() else {
            return;
        };
        round.over = true;
        let number = round.number;
        if let Some(m) = self.member_mut(player) {
            m.score += ROUND_POINTS;
        }
        fx.events.push(RoomEvent::RoundWon {
            round: number,
            winner: player,
            formula: formula.map(str::to_owned),
            no_solution: formula.is_none(),
            elapsed_ms,
            points: ROUND_POINTS,
        });
        let msg = ServerMessage::RoundWon {
            round: number,
            winner: player,
            formula: formula.map(str::to_owned),
            no_solution: formula.is_none(),
            elapsed_ms,
            points: ROUND_POINTS,
            scores: self
                .members
                .iter()
                .filter(|m| !m.spectator)
                .map(|m| ScoreEntry {
                    player: m.id,
                    score: m.score,
                })
                .collect(),
        };
        self.remember(msg.clone());
        fx.send(Recipient::All, msg);
        self.end_round(now, fx);
    }

    // -- chat ---------------------------------------------------------------

    /// A chat message to the room.
    pub fn chat(&mut self, player: PlayerId, text: &str, now: u64) -> Result<Effects, RoomError> {
        self.advance(now);
        let text = text.trim();
        if text.chars().count() > MAX_CHAT_LEN {
            return Err(RoomError::TooLong);
        }
        if text.is_empty() {
            return Err(RoomError::EmptyChat);
        }
        let m = self.member_mut(player).ok_or(RoomError::NotInRoom)?;
        while m
            .chat_times
            .front()
            .is_some_and(|&t| t + CHAT_WINDOW_MS <= now)
        {
            m.chat_times.pop_front();
        }
        if m.chat_times.len() >= CHAT_BURST {
            return Err(RoomError::RateLimited);
        }
        m.chat_times.push_back(now);
        let msg = ServerMessage::Chat {
            from: player,
            name: m.name.clone(),
            text: text.to_owned(),
        };
        let mut fx = std::mem::take(&mut self.pending);
        self.remember(msg.clone());
        fx.send(Recipient::All, msg);
        Ok(fx)
    }

    // -- dispatch -----------------------------------------------------------

    /// Handles any room-level client message from a member (`leave_room`,
    /// `update_settings`, `start`, `submit`, `claim_no_solution`, `chat`,
    /// `kick`, `lock`, `transfer_host`); a refusal becomes an `error` reply.
    /// Other messages are the lobby's business and get a `wrong_state` error.
    pub fn handle(&mut self, player: PlayerId, message: &ClientMessage, now: u64) -> Effects {
        let result = match message {
            ClientMessage::LeaveRoom => self.leave(player, now),
            ClientMessage::UpdateSettings { settings } => {
                self.update_settings(player, settings, now)
            }
            ClientMessage::Start => self.start(player, now),
            ClientMessage::Submit { round, formula } => self.submit(player, *round, formula, now),
            ClientMessage::ClaimNoSolution { round } => self.claim_no_solution(player, *round, now),
            ClientMessage::Chat { text } => self.chat(player, text, now),
            ClientMessage::Kick { player: target } => self.kick(player, *target, now),
            ClientMessage::Lock { locked } => self.lock(player, *locked, now),
            ClientMessage::TransferHost { player: target } => {
                self.transfer_host(player, *target, now)
            }
            _ => Err(RoomError::WrongState("not a room message")),
        };
        match result {
            Ok(fx) => fx,
            Err(e) => {
                let mut fx = std::mem::take(&mut self.pending);
                fx.reply(player, e.to_message());
                fx
            }
        }
    }

    // -- helpers ------------------------------------------------------------

    fn member(&self, player: PlayerId) -> Option<&Member> {
        self.members.iter().find(|m| m.id == player)
    }

    fn member_mut(&mut self, player: PlayerId) -> Option<&mut Member> {
        self.members.iter_mut().find(|m| m.id == player)
    }

    fn require_host(&self, player: PlayerId) -> Result<(), RoomError> {
        if !self.is_member(player) {
            Err(RoomError::NotInRoom)
        } else if self.host != player {
            Err(RoomError::NotHost)
        } else {
            Ok(())
        }
    }

    fn require_between_matches(&self) -> Result<(), RoomError> {
        match self.phase {
            Phase::Lobby | Phase::Finished => Ok(()),
            _ => Err(RoomError::WrongState("a match is in progress")),
        }
    }

    /// Sends every connected member their own snapshot (they differ only in
    /// the viewer's lockout); the one for `replying_to` is marked a reply.
    fn broadcast_state(&self, replying_to: Option<PlayerId>, now: u64, fx: &mut Effects) {
        for m in self.members.iter().filter(|m| m.connected()) {
            let msg = ServerMessage::RoomState(self.snapshot_for(m.id, now));
            if Some(m.id) == replying_to {
                fx.reply(m.id, msg);
            } else {
                fx.send(Recipient::Player(m.id), msg);
            }
        }
    }

    fn remember(&mut self, msg: ServerMessage) {
        if self.recent.len() >= RECENT_EVENTS {
            self.recent.pop_front();
        }
        self.recent.push_back(msg);
    }
}

impl Member {
    fn new(id: PlayerId, name: String, spectator: bool, eligible_from: u32) -> Self {
        Member {
            id,
            name,
            spectator,
            disconnected_at: None,
            score: 0,
            eligible_from,
            locked_until: 0,
            chat_times: VecDeque::new(),
        }
    }
}
