//! Answers: formulas and "no solution" claims, judged in arrival order, with
//! lockouts and penalties for wrong ones and the round for the first right one.

use super::referee;
use super::roster::take_credit;
use super::{
    Effects, Phase, Recipient, Room, RoomError, RoomEvent, ATTEMPT_BURST, ATTEMPT_WINDOW_MS,
    ROUND_POINTS,
};
use crate::formula;
use crate::protocol::{
    DealMode, PlayerId, RoundWin, ScoreEntry, Scoring, ServerMessage, VerdictError, VerdictKind,
};
use crate::rational::Rational;

impl Room {
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

    pub(super) fn attempt(
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
        self.take_attempt_credit(player, now)?;
        if formula.is_none() && self.settings.deal != DealMode::Any {
            return Err(RoomError::WrongState(
                "\"no solution\" claims need the setting deal: any",
            ));
        }
        let (current, over, elapsed_ms) = match (&self.phase, &self.round) {
            (Phase::Playing | Phase::BetweenRounds { .. } | Phase::Finished, Some(r)) => {
                (r.number, r.over, r.elapsed_ms(now))
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
        // The attempt as it is recorded when it is refused.
        let refused = |kind: VerdictKind| RoomEvent::Attempt {
            round: current,
            player,
            formula: formula.map(str::to_owned),
            accepted: false,
            error: Some(kind),
            elapsed_ms,
        };
        if over {
            self.count_attempt(player, &mut fx, refused(VerdictKind::RoundOver));
            fx.reply(
                player,
                refuse(VerdictKind::RoundOver, "this round is already over", None),
            );
            return Ok(fx);
        }
        if self
            .round
            .as_ref()
            .is_some_and(|r| r.solved.iter().any(|(p, _, _)| *p == player))
        {
            self.pending = fx;
            return Err(RoomError::WrongState("you already solved this round"));
        }
        if eligible_from > current {
            self.pending = fx;
            return Err(RoomError::NotAPlayer(
                "you joined during this round; you play from the next one",
            ));
        }
        if now < locked_until {
            let left = locked_until - now;
            self.count_attempt(player, &mut fx, refused(VerdictKind::LockedOut));
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
        // What is broadcast of a winning formula is the formula as the
        // parser prints it, never the raw text a player sent.
        let verdict: Result<(Option<Rational>, Option<String>), VerdictError> = match formula {
            Some(f) => referee::check(f, &cards, target, rules)
                .map(|ok| (Some(ok.value), Some(ok.printed))),
            None => match referee::solve_one(&cards, target, rules) {
                Ok(None) => Ok((None, None)),
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
            Ok((value, printed)) => {
                self.count_attempt(
                    player,
                    &mut fx,
                    RoomEvent::Attempt {
                        round: current,
                        player,
                        formula: printed.clone(),
                        accepted: true,
                        error: None,
                        elapsed_ms,
                    },
                );
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
                if self.settings.scoring == Scoring::Everyone {
                    self.solved(player, printed, elapsed_ms, now, &mut fx);
                } else {
                    self.win(player, printed, elapsed_ms, now, &mut fx);
                }
            }
            Err(error) => {
                let lockout = u64::from(self.settings.lockout_seconds) * 1000;
                let penalty = i64::from(self.settings.wrong_penalty);
                let score = match self.member_mut(player) {
                    Some(m) => {
                        m.locked_until = now + lockout;
                        m.round_misses += 1;
                        m.score -= penalty;
                        m.score
                    }
                    None => 0,
                };
                self.count_attempt(player, &mut fx, refused(error.kind));
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

    pub(super) fn win(
        &mut self,
        player: PlayerId,
        formula: Option<String>,
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
        let win = RoundWin {
            round: number,
            winner: player,
            no_solution: formula.is_none(),
            formula,
            elapsed_ms,
            points: ROUND_POINTS,
        };
        self.announce_win(win, now, fx);
    }

    /// Tells everyone who won the round, with the seated players' scores,
    /// keeps the message among the recent ones and ends the round.
    fn announce_win(&mut self, win: RoundWin, at: u64, fx: &mut Effects) {
        fx.events.push(RoomEvent::RoundWon(win.clone()));
        let msg = ServerMessage::RoundWon {
            win,
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
        self.end_round(at, fx);
    }

    /// With `everyone` scoring: a right answer scores by its order and the
    /// round goes on, until every seated player has solved it.
    fn solved(
        &mut self,
        player: PlayerId,
        formula: Option<String>,
        elapsed_ms: u64,
        now: u64,
        fx: &mut Effects,
    ) {
        let Some(round) = self.round.as_mut() else {
            return;
        };
        let points = everyone_points(round.solved.len());
        round.solved.push((player, elapsed_ms, formula));
        let number = round.number;
        let score = match self.member_mut(player) {
            Some(m) => {
                m.score += points;
                m.solve_ms = m.solve_ms.saturating_add(elapsed_ms);
                m.score
            }
            None => 0,
        };
        fx.send(
            Recipient::All,
            ServerMessage::Solved {
                round: number,
                player,
                elapsed_ms,
                points,
                score,
            },
        );
        self.close_if_everyone_solved(now, fx);
    }

    /// Ends a live `everyone` round someone solved once every seated
    /// player still in it has: after a right answer, and after a leave
    /// (the last one still solving may go instead).
    pub(super) fn close_if_everyone_solved(&mut self, at: u64, fx: &mut Effects) {
        let Some(round) = self
            .round
            .as_ref()
            .filter(|r| !r.over && !r.solved.is_empty())
        else {
            return;
        };
        let all_solved = self
            .members
            .iter()
            .filter(|m| !m.spectator && m.eligible_from <= round.number)
            .all(|m| round.solved.iter().any(|(p, _, _)| *p == m.id));
        if all_solved {
            self.close_solved_round(at, fx);
        }
    }

    /// Ends an `everyone` round someone solved: announced as won by the
    /// first solver (their formula and time, their points).
    pub(super) fn close_solved_round(&mut self, at: u64, fx: &mut Effects) {
        let Some(round) = self.round.as_mut() else {
            return;
        };
        round.over = true;
        let number = round.number;
        let Some((winner, elapsed_ms, formula)) = round.solved.first().cloned() else {
            return;
        };
        let win = RoundWin {
            round: number,
            winner,
            no_solution: false,
            formula,
            elapsed_ms,
            points: everyone_points(0),
        };
        self.announce_win(win, at, fx);
    }

    /// Counts an answer against the seat's flood limit, or refuses it
    /// (neither judged nor recorded).
    fn take_attempt_credit(&mut self, player: PlayerId, now: u64) -> Result<(), RoomError> {
        let m = self.member_mut(player).ok_or(RoomError::NotInRoom)?;
        take_credit(
            &mut m.attempt_expiries,
            now,
            ATTEMPT_BURST,
            ATTEMPT_WINDOW_MS,
        )
    }

    /// Records an answer, and counts it towards the player's attempts in
    /// the match when it is a real one ([`counts_as_attempt`]).
    fn count_attempt(&mut self, player: PlayerId, fx: &mut Effects, event: RoomEvent) {
        let counts = match (&event, &self.round) {
            (
                RoomEvent::Attempt {
                    formula, accepted, ..
                },
                Some(round),
            ) => counts_as_attempt(formula.as_deref(), *accepted, &round.deal.hand),
            _ => false,
        };
        if let (true, Some(m)) = (counts, self.member_mut(player)) {
            m.attempts += 1;
        }
        fx.events.push(event);
    }
}

/// Points of the right answer number `order` (from 0) of an `everyone`
/// round: 3, 2, 1, then 1 each.
pub fn everyone_points(order: usize) -> i64 {
    match order {
        0 => 3,
        1 => 2,
        _ => 1,
    }
}

/// Whether an answer is a real attempt at the hand, for ratings and boards
/// (a match rates, and its rounds count on the boards, only when two or
/// more people made one): a complete formula over the hand's cards
/// ([`formula::uses_hand`], right or wrong), or a right "no solution"
/// claim. `1+1`, a fragment or a wrong claim is not: a puppet account must
/// not make a match look played by typing nothing of the hand.
pub fn counts_as_attempt(formula: Option<&str>, accepted: bool, cards: &[i64]) -> bool {
    accepted || formula.is_some_and(|f| formula::uses_hand(f, cards))
}
