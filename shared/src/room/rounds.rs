//! The room's clock and its matches: starting a match, the countdown, deals,
//! time-outs, the pause between rounds and the final standings. Deadlines are
//! absolute `now` values; [`Room::tick`] fires every one that is due.

use super::referee;
use super::{
    Effects, Entrant, MatchResult, Recipient, Room, RoomError, RoomEvent, BETWEEN_ROUNDS_MS,
    COUNTDOWN_MS,
};
use crate::cards::Deal;
use crate::protocol::{
    LeaveReason, PlayerId, Scoring, ServerMessage, SettingsError, SettingsPatch, Standing,
};

/// The hand being played (or last played) in the current match.
#[derive(Debug, Clone)]
pub(super) struct Round {
    pub(super) number: u32,
    pub(super) deal: Deal,
    /// How long the round was dealt for; with the deadline it gives the
    /// time since the deal.
    pub(super) duration_ms: u64,
    pub(super) deadline: u64,
    /// Won or timed out: later answers get "round over".
    pub(super) over: bool,
    /// With `scoring: everyone`: who has solved it, in order, with their
    /// time and printed formula.
    pub(super) solved: Vec<(PlayerId, u64, Option<String>)>,
}

impl Round {
    /// Time since the deal.
    pub(super) fn elapsed_ms(&self, now: u64) -> u64 {
        (now + self.duration_ms).saturating_sub(self.deadline)
    }
}

/// What the room is doing; deadlines are absolute `now` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    Lobby,
    Countdown {
        until: u64,
    },
    Playing,
    BetweenRounds {
        until: u64,
    },
    Finished,
    /// The host asked for a rematch: waiting for everyone's `ready`, or
    /// for `until`.
    ReadyCheck {
        until: u64,
    },
}

impl Phase {
    /// Between matches: nothing is being played (a ready check included).
    pub(super) fn between_matches(self) -> bool {
        matches!(
            self,
            Phase::Lobby | Phase::Finished | Phase::ReadyCheck { .. }
        )
    }
}

impl Room {
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
    pub(super) fn advance(&mut self, now: u64) {
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
    pub(super) fn next_due(&self) -> Option<u64> {
        let phase = match self.phase {
            Phase::Countdown { until }
            | Phase::BetweenRounds { until }
            | Phase::ReadyCheck { until } => Some(until),
            Phase::Playing => self.round.as_ref().map(|r| r.deadline),
            Phase::Lobby | Phase::Finished => None,
        };
        let seats = self.members.iter().filter_map(|m| m.released_at);
        phase.into_iter().chain(seats).min()
    }

    /// Handles the deadline at `at` (events happen at their due time, not
    /// when the tick arrived, so elapsed times and the next deadlines do not
    /// drift with a late tick).
    pub(super) fn fire(&mut self, at: u64, fx: &mut Effects) {
        // Seats first: a player whose hold ran out is gone before the round
        // logic looks at the roster.
        let expired: Vec<PlayerId> = self
            .members
            .iter()
            .filter(|m| m.released_at.is_some_and(|t| t <= at))
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
            Phase::ReadyCheck { until } if until <= at => self.begin_match(None, until, fx),
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

    pub(super) fn deal_round(&mut self, number: u32, at: u64, fx: &mut Effects) {
        let deal = self.dealer.deal(&self.settings);
        let duration = u64::from(self.settings.round_seconds) * 1000;
        for m in &mut self.members {
            m.locked_until = 0;
            m.round_misses = 0;
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
            duration_ms: duration,
            deadline: at + duration,
            over: false,
            solved: Vec::new(),
        });
        self.phase = Phase::Playing;
    }

    pub(super) fn time_out(&mut self, at: u64, fx: &mut Effects) {
        let Some(round) = self.round.as_mut() else {
            return;
        };
        if !round.solved.is_empty() {
            // `everyone`: the time is up for those still solving.
            self.close_solved_round(at, fx);
            return;
        }
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
    pub(super) fn end_round(&mut self, at: u64, fx: &mut Effects) {
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

    pub(super) fn finish_match(&mut self, rounds_played: u32, fx: &mut Effects) {
        let by_time = self.settings.scoring == Scoring::Everyone;
        let mut rows: Vec<(Standing, Entrant, u64)> = self
            .members
            .iter()
            .filter(|m| !m.spectator && m.eligible_from <= rounds_played)
            .map(|m| (m.id, &m.name, m.score, m.bot, m.attempts, m.solve_ms))
            .chain(
                // Their time is not kept: after everyone still seated
                // with the same score.
                self.departed
                    .iter()
                    .map(|d| (d.id, &d.name, d.score, d.bot, d.attempts, u64::MAX)),
            )
            .map(|(player, name, score, bot, attempts, solve_ms)| {
                let standing = Standing {
                    solve_ms: (by_time && solve_ms != u64::MAX).then_some(solve_ms),
                    // Ranked below, once every line is in.
                    ..Standing::unrated(player, name.as_str(), score, 0)
                };
                let entrant = Entrant {
                    player,
                    bot,
                    attempts,
                };
                // With `first` scoring equal scores share a rank; with
                // `everyone` the less total time of right answers is ahead.
                (standing, entrant, if by_time { solve_ms } else { 0 })
            })
            .collect();
        // Stable: equal keys keep seating order.
        rows.sort_by_key(|(s, _, time)| (std::cmp::Reverse(s.score), *time));
        let keys: Vec<(i64, u64)> = rows.iter().map(|(s, _, t)| (s.score, *t)).collect();
        for (s, _, time) in &mut rows {
            let ahead = keys
                .iter()
                .filter(|&&(score, t)| score > s.score || (score == s.score && t < *time))
                .count();
            s.rank = 1 + ahead as u32;
        }
        let (standings, entrants): (Vec<Standing>, Vec<Entrant>) =
            rows.into_iter().map(|(s, e, _)| (s, e)).unzip();
        fx.events.push(RoomEvent::MatchFinished(MatchResult {
            settings: self.settings.clone(),
            rounds_played,
            standings: standings.clone(),
            entrants,
        }));
        let msg = ServerMessage::MatchOver {
            standings,
            match_id: None,
        };
        self.remember(msg.clone());
        fx.send(Recipient::All, msg);
        self.phase = Phase::Finished;
        self.departed.clear();
    }

    // -- match --------------------------------------------------------------

    /// Host only, between matches: changes settings.
    pub fn update_settings(
        &mut self,
        host: PlayerId,
        patch: &SettingsPatch,
        now: u64,
    ) -> Result<Effects, RoomError> {
        self.host_acts(host, now)?;
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
    /// Right after a match (a rematch) it opens a ready check instead; the
    /// host's `start` during the check starts at once.
    pub fn start(&mut self, host: PlayerId, now: u64) -> Result<Effects, RoomError> {
        self.host_acts(host, now)?;
        self.require_between_matches()?;
        if self.player_count() == 0 {
            return Err(RoomError::WrongState("a match needs at least one player"));
        }
        let mut fx = std::mem::take(&mut self.pending);
        if self.phase == Phase::Finished {
            self.open_ready_check(host, now, &mut fx);
        } else {
            self.begin_match(Some(host), now, &mut fx);
        }
        Ok(fx)
    }

    /// Resets the scores and starts the countdown of a new match; the
    /// snapshot for `replying_to` (the host who started it) is a reply.
    pub(super) fn begin_match(
        &mut self,
        replying_to: Option<PlayerId>,
        now: u64,
        fx: &mut Effects,
    ) {
        if self.player_count() == 0 {
            // Everyone left during a ready check: back to the lobby.
            self.phase = Phase::Lobby;
            self.broadcast_state(None, now, fx);
            return;
        }
        for m in &mut self.members {
            m.score = 0;
            m.solve_ms = 0;
            m.attempts = 0;
            m.eligible_from = 0;
            m.locked_until = 0;
            m.round_misses = 0;
        }
        self.departed.clear();
        self.round = None;
        self.phase = Phase::Countdown {
            until: now + COUNTDOWN_MS,
        };
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
        self.broadcast_state(replying_to, now, fx);
    }
}
