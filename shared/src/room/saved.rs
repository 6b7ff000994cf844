//! A room's whole state as plain data, so a server stopping gracefully can
//! store every room and bring it back when it starts again, each round
//! resuming with the time it had left.
//!
//! Room clocks are per process (the server counts from when a room opened),
//! so nothing here is an absolute time: every deadline is saved as the time
//! left until it, and every past moment as the time since, both measured at
//! the `now` of [`Room::save`]; [`Room::restore`] lays them out again from its
//! own `now`. A past moment that would fall before the new clock's zero is
//! put at zero: the room is then a little more lenient (an empty room's grace,
//! the time since a finished round's deal), never harsher.
//!
//! Not saved: the dealer (the restoring server passes a fresh one: dealt
//! hands are saved, future ones are not yet drawn), the server's limits
//! (passed in again), and effects not yet delivered — save between commands,
//! after delivering what the last one produced, as the room task does.

use std::collections::{HashSet, VecDeque};

use serde::{Deserialize, Serialize};

use super::roster::Member;
use super::rounds::{Phase, Round};
use super::{Dealer, Effects, Room, RoomError, RoomLimits};
use crate::cards::Deal;
use crate::protocol::{PlayerId, RoomSettings, ServerMessage};

/// Everything a room needs to carry on where it was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedRoom {
    /// The room's code.
    pub code: String,
    /// Its settings.
    pub settings: RoomSettings,
    /// Who hosts it.
    pub host: PlayerId,
    /// Whether it refuses newcomers.
    pub locked: bool,
    /// Its members in seating order, seats held for the disconnected.
    pub members: Vec<SavedMember>,
    /// Players the host kicked, in id order.
    pub banned: Vec<PlayerId>,
    /// What the room is doing.
    pub phase: SavedPhase,
    /// The hand being played, or last played, in this match.
    pub round: Option<SavedRound>,
    /// Players who left during the match, for its standings.
    pub departed: Vec<SavedDeparted>,
    /// The feed a joining or resuming member is shown.
    pub recent: Vec<ServerMessage>,
    /// How long nobody has been connected, if so.
    pub vacant_for_ms: Option<u64>,
}

/// A member of a saved room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedMember {
    /// Who.
    pub id: PlayerId,
    /// Their name.
    pub name: String,
    /// Said it is a bot.
    pub bot: bool,
    /// Watches only.
    pub spectator: bool,
    /// If disconnected, how long their seat is still held.
    pub seat_held_ms: Option<u64>,
    /// Score in the current (or last) match.
    pub score: i64,
    /// Total time of their right answers in it (`everyone` scoring).
    #[serde(default)]
    pub solve_ms: u64,
    /// Attempts judged in the current (or last) match.
    pub attempts: u32,
    /// First round of the match they may answer.
    pub eligible_from: u32,
    /// Lockout left after a wrong answer (0 if none).
    pub locked_out_ms: u64,
    /// For each recent chat message, how long it still counts against the
    /// flood limit, oldest first.
    pub chat_counts_ms: Vec<u64>,
    /// Said `ready` in the open ready check (absent in rooms saved before
    /// ready checks existed).
    #[serde(default)]
    pub ready: bool,
    /// Wrong answers in the round being played (absent in rooms saved
    /// before the room's screens showed who has tried).
    #[serde(default)]
    pub round_misses: u32,
}

/// A saved room's phase; countdowns are the time left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum SavedPhase {
    /// Waiting for the host to start.
    Lobby,
    /// A match is about to begin.
    Countdown {
        /// Time until the first deal.
        left_ms: u64,
    },
    /// A round is being played (its deadline is in the round).
    Playing,
    /// The pause after a result.
    BetweenRounds {
        /// Time until the next deal.
        left_ms: u64,
    },
    /// The match is over.
    Finished,
    /// A rematch waits for everyone's `ready`.
    ReadyCheck {
        /// Time until it starts anyway.
        left_ms: u64,
    },
}

/// The hand of a saved room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedRound {
    /// 1-based round number.
    pub number: u32,
    /// The hand.
    pub deal: Deal,
    /// How long the round was dealt for.
    pub duration_ms: u64,
    /// Time left until its deadline; negative once the deadline has passed
    /// (a round already won or timed out).
    pub deadline_in_ms: i64,
    /// Won or timed out.
    pub over: bool,
    /// With `scoring: everyone`: who solved it so far, in order, with their
    /// time and formula.
    #[serde(default)]
    pub solved: Vec<(PlayerId, u64, Option<String>)>,
}

/// A player who left during a saved room's match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedDeparted {
    /// Who.
    pub id: PlayerId,
    /// Their name.
    pub name: String,
    /// Said it is a bot.
    pub bot: bool,
    /// Their score when they left.
    pub score: i64,
    /// Their attempts when they left.
    pub attempts: u32,
}

/// Time left until `at`, seen from `now` (0 if already due).
fn left(at: u64, now: u64) -> u64 {
    at.saturating_sub(now)
}

impl Room {
    /// The room's whole state at `now`, as data. Pure: the room carries on
    /// unchanged.
    pub fn save(&self, now: u64) -> SavedRoom {
        let mut banned: Vec<PlayerId> = self.banned.iter().copied().collect();
        banned.sort();
        SavedRoom {
            code: self.code.clone(),
            settings: self.settings.clone(),
            host: self.host,
            locked: self.locked,
            members: self
                .members
                .iter()
                .map(|m| SavedMember {
                    id: m.id,
                    name: m.name.clone(),
                    bot: m.bot,
                    spectator: m.spectator,
                    seat_held_ms: m.released_at.map(|t| left(t, now)),
                    score: m.score,
                    solve_ms: m.solve_ms,
                    attempts: m.attempts,
                    eligible_from: m.eligible_from,
                    locked_out_ms: left(m.locked_until, now),
                    round_misses: m.round_misses,
                    chat_counts_ms: m.chat_expiries.iter().map(|&t| left(t, now)).collect(),
                    ready: m.ready,
                })
                .collect(),
            banned,
            phase: match self.phase {
                Phase::Lobby => SavedPhase::Lobby,
                Phase::Countdown { until } => SavedPhase::Countdown {
                    left_ms: left(until, now),
                },
                Phase::Playing => SavedPhase::Playing,
                Phase::BetweenRounds { until } => SavedPhase::BetweenRounds {
                    left_ms: left(until, now),
                },
                Phase::Finished => SavedPhase::Finished,
                Phase::ReadyCheck { until } => SavedPhase::ReadyCheck {
                    left_ms: left(until, now),
                },
            },
            round: self.round.as_ref().map(|r| SavedRound {
                number: r.number,
                deal: r.deal.clone(),
                duration_ms: r.duration_ms,
                deadline_in_ms: signed_offset(r.deadline, now),
                over: r.over,
                solved: r.solved.clone(),
            }),
            departed: self.departed.clone(),
            recent: self.recent.iter().cloned().collect(),
            vacant_for_ms: self.vacated_at.map(|t| now.saturating_sub(t)),
        }
    }

    /// The room `saved` described, carrying on at `now` on the restoring
    /// server's clock, dealing future hands from `dealer`. Refused if the
    /// saved settings are no longer valid (a stored room is outside input).
    pub fn restore(
        saved: SavedRoom,
        dealer: Box<dyn Dealer>,
        limits: RoomLimits,
        now: u64,
    ) -> Result<Room, RoomError> {
        saved.settings.validate()?;
        let members: Vec<Member> = saved
            .members
            .into_iter()
            .map(|m| Member {
                id: m.id,
                name: m.name,
                bot: m.bot,
                spectator: m.spectator,
                released_at: m.seat_held_ms.map(|ms| now + ms),
                score: m.score,
                solve_ms: m.solve_ms,
                attempts: m.attempts,
                eligible_from: m.eligible_from,
                locked_until: if m.locked_out_ms > 0 {
                    now + m.locked_out_ms
                } else {
                    0
                },
                round_misses: m.round_misses,
                chat_expiries: m.chat_counts_ms.iter().map(|&ms| now + ms).collect(),
                attempt_expiries: VecDeque::new(),
                ready: m.ready,
                reaction_expiries: VecDeque::new(),
            })
            .collect();
        let mut room = Room {
            code: saved.code,
            settings: saved.settings,
            host: saved.host,
            locked: saved.locked,
            members,
            banned: saved.banned.into_iter().collect::<HashSet<_>>(),
            phase: match saved.phase {
                SavedPhase::Lobby => Phase::Lobby,
                SavedPhase::Countdown { left_ms } => Phase::Countdown {
                    until: now + left_ms,
                },
                SavedPhase::Playing => Phase::Playing,
                SavedPhase::BetweenRounds { left_ms } => Phase::BetweenRounds {
                    until: now + left_ms,
                },
                SavedPhase::Finished => Phase::Finished,
                SavedPhase::ReadyCheck { left_ms } => Phase::ReadyCheck {
                    until: now + left_ms,
                },
            },
            round: saved.round.map(|r| Round {
                number: r.number,
                deal: r.deal,
                duration_ms: r.duration_ms,
                deadline: apply_offset(now, r.deadline_in_ms),
                over: r.over,
                solved: r.solved,
            }),
            departed: saved.departed,
            dealer,
            recent: saved.recent.into_iter().collect::<VecDeque<_>>(),
            limits,
            vacated_at: saved.vacant_for_ms.map(|ms| now.saturating_sub(ms)),
            reaction_expiries: std::collections::VecDeque::new(),
            pending: Effects::default(),
        };
        // A round being played needs its hand: a saved room that says
        // otherwise goes back to its lobby rather than stall.
        if room.phase == Phase::Playing && room.round.is_none() {
            room.phase = Phase::Lobby;
        }
        if !room.is_member(room.host) {
            if let Some(next) = room.successor() {
                room.host = next;
            }
        }
        Ok(room)
    }
}

/// `at - now` as a signed number of milliseconds.
fn signed_offset(at: u64, now: u64) -> i64 {
    let diff = i128::from(at) - i128::from(now);
    i64::try_from(diff).unwrap_or(if diff < 0 { i64::MIN } else { i64::MAX })
}

/// `now + offset`, kept within the clock (a past before its zero is zero).
fn apply_offset(now: u64, offset: i64) -> u64 {
    let at = i128::from(now) + i128::from(offset);
    u64::try_from(at.max(0)).unwrap_or(u64::MAX)
}
