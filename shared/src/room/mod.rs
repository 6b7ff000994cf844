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
//!   and `rating_after` after recording [`RoomEvent::MatchFinished`], and
//!   hands them back with [`Room::rated`] so that the copy kept for
//!   resuming clients shows them too.
//!
//! Timings: a 3 s countdown before the first round, a 4 s pause between
//! rounds, seats kept 60 s after a disconnection, chat limited to 5 messages
//! per 10 s per member. A round won scores 1 point; a wrong answer costs
//! `wrong_penalty` points (scores may go negative).

//!
//! The module's parts, one concept each:
//! - [`effects`]: what a command produces — messages to whom, events to record;
//! - [`error`]: why a command was refused;
//! - [`dealer`]: where hands come from, and the difficulty bands;
//! - `referee`: the checker and the solver behind the room's few calls;
//! - `rounds`: the clock — countdown, deals, time-outs, match start and end;
//! - `roster`: members — join, leave, kick, host, seats held while away;
//! - `play`: answers — formulas, "no solution" claims, lockouts, wins;
//! - [`bots`]: bots the host seats and removes between matches;
//! - `chat`: chat and its flood limit;
//! - `party`: reactions, and the ready check before a rematch;
//! - `view`: what members see — snapshots, the lobby summary, queries;
//! - [`saved`]: the whole state as data, to survive a server restart.

pub mod bots;
mod chat;
pub mod dealer;
pub mod effects;
pub mod error;
mod party;
mod play;
pub(crate) mod referee;
mod roster;
mod rounds;
pub mod saved;
mod view;

use std::collections::{HashSet, VecDeque};

use crate::protocol::{ClientMessage, PlayerId, RoomSettings, ServerMessage, Standing};

pub use bots::MAX_BOTS;
pub use dealer::{
    difficulty_of, Dealer, DifficultyBands, HandSource, RandomDealer, ScriptedDealer, ShuffledDeck,
};
pub use effects::{Effects, Entrant, MatchResult, Outgoing, Recipient, RoomEvent};
pub use error::{RoomError, ROOM_NOT_FOUND};
pub use play::{counts_as_attempt, everyone_points};
pub use roster::Joiner;
pub use saved::{SavedDeparted, SavedMember, SavedPhase, SavedRoom, SavedRound};

use roster::{Departed, Member};
use rounds::{Phase, Round};

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
/// Answer flood limit: at most this many formulas or claims…
pub const ATTEMPT_BURST: usize = 10;
/// …within this window, per seat. A person's tries are seconds apart (and
/// a wrong one locks them out); a script's thousands would each be judged
/// and recorded.
pub const ATTEMPT_WINDOW_MS: u64 = 10_000;
/// How long a rematch's ready check waits for everyone's `ready`.
pub const READY_CHECK_MS: u64 = 15_000;
/// Reaction limit: at most this many reactions…
pub const REACTION_BURST: usize = 4;
/// …within this window, per member.
pub const REACTION_WINDOW_MS: u64 = 4_000;
/// And at most this many in the whole room…
pub const ROOM_REACTION_BURST: usize = 16;
/// …within this window: 8 a second at most reach a TV, however many
/// members send them (100 a second took a TV page to 81 % of a core).
pub const ROOM_REACTION_WINDOW_MS: u64 = 2_000;
/// Points for winning a round.
pub const ROUND_POINTS: i64 = 1;
/// How many recent events a snapshot carries for a resuming client's feed.
pub const RECENT_EVENTS: usize = 20;

/// Limits the server puts on every room (its flags), as opposed to the
/// settings a host chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoomLimits {
    /// Most spectators at once; the next one gets `room_full`. Every member
    /// costs the room a message per event, so an unbounded crowd would slow
    /// the game for its players.
    pub max_spectators: u32,
}

impl RoomLimits {
    /// The default spectator cap.
    pub const DEFAULT_MAX_SPECTATORS: u32 = 100;
}

impl Default for RoomLimits {
    fn default() -> Self {
        RoomLimits {
            max_spectators: Self::DEFAULT_MAX_SPECTATORS,
        }
    }
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
    /// Limits the server sets on every room.
    limits: RoomLimits,
    /// When the last connected member left or dropped, while nobody is
    /// connected: the server closes a room vacant for long enough.
    vacated_at: Option<u64>,
    /// When each reaction relayed lately stops counting against the
    /// room's limit, oldest first (not saved: a restart forgives them).
    reaction_expiries: VecDeque<u64>,
    /// Effects produced by time passing during a command that was then
    /// refused; delivered by the next call.
    pending: Effects,
}

impl Room {
    /// A new room in its lobby with `host` seated as its first player. The
    /// effects hold the host's first snapshot.
    pub fn new(
        code: impl Into<String>,
        host: Joiner,
        settings: RoomSettings,
        dealer: Box<dyn Dealer>,
        limits: RoomLimits,
        now: u64,
    ) -> Result<(Room, Effects), RoomError> {
        settings.validate()?;
        let host_id = host.id;
        let mut room = Room {
            code: code.into(),
            settings,
            host: host_id,
            locked: false,
            members: Vec::new(),
            banned: HashSet::new(),
            phase: Phase::Lobby,
            round: None,
            departed: Vec::new(),
            dealer,
            recent: VecDeque::new(),
            limits,
            vacated_at: None,
            reaction_expiries: VecDeque::new(),
            pending: Effects::default(),
        };
        room.members.push(Member::new(host, false, 0));
        let mut fx = Effects::default();
        fx.reply(
            host_id,
            ServerMessage::RoomState(room.snapshot_for(host_id, now)),
        );
        Ok((room, fx))
    }

    // -- dispatch -----------------------------------------------------------

    /// Handles any room-level client message from a member (`leave_room`,
    /// `update_settings`, `start`, `submit`, `claim_no_solution`, `chat`,
    /// `kick`, `lock`, `transfer_host`, `react`, `ready`,
    /// `remove_bot`); a refusal becomes
    /// an `error` reply.
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
            ClientMessage::React { emoji } => self.react(player, emoji, now),
            ClientMessage::Ready => self.ready(player, now),
            ClientMessage::RemoveBot { player: target } => self.remove_bot(player, *target, now),
            // Who the bot is comes from the server: see `Room::add_bot`.
            ClientMessage::AddBot { .. } => Err(RoomError::WrongState("bots come from the server")),
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

    fn member(&self, player: PlayerId) -> Option<&Member> {
        self.members.iter().find(|m| m.id == player)
    }

    fn member_mut(&mut self, player: PlayerId) -> Option<&mut Member> {
        self.members.iter_mut().find(|m| m.id == player)
    }

    /// How a host's command begins: time passes up to `now` (so the command
    /// acts on the room as it is then), and `host` must hold the role.
    fn host_acts(&mut self, host: PlayerId, now: u64) -> Result<(), RoomError> {
        self.advance(now);
        self.require_host(host)
    }

    /// [`Room::host_acts`] on another member, `target`, who must be in the
    /// room.
    fn host_acts_on(
        &mut self,
        host: PlayerId,
        target: PlayerId,
        now: u64,
    ) -> Result<&Member, RoomError> {
        self.host_acts(host, now)?;
        self.member(target).ok_or(RoomError::PlayerNotFound(target))
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
        if self.phase.between_matches() {
            Ok(())
        } else {
            Err(RoomError::WrongState("a match is in progress"))
        }
    }

    /// The standings of the match just over, with the ratings the caller
    /// recorded for it: the `match_over` kept among the recent events (what
    /// a client that resumes or opens the room afterwards is shown) carries
    /// them too.
    pub fn rated(&mut self, standings: &[Standing]) {
        let kept = self.recent.iter_mut().rev().find_map(|m| match m {
            ServerMessage::MatchOver { standings, .. } => Some(standings),
            _ => None,
        });
        if let Some(kept) = kept {
            *kept = standings.to_vec();
        }
    }

    /// The id the caller recorded the match just over under: the kept
    /// `match_over` carries it too, for a client that resumes afterwards.
    pub fn recorded_as(&mut self, id: &str) {
        let kept = self.recent.iter_mut().rev().find_map(|m| match m {
            ServerMessage::MatchOver { match_id, .. } => Some(match_id),
            _ => None,
        });
        if let Some(kept) = kept {
            *kept = Some(id.to_owned());
        }
    }

    fn remember(&mut self, msg: ServerMessage) {
        if self.recent.len() >= RECENT_EVENTS {
            self.recent.pop_front();
        }
        self.recent.push_back(msg);
    }
}
