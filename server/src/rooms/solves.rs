//! The last round each seated player solved in their room, for
//! `challenge_create` with a `round`: a challenge of a room's hand is made
//! from what the room saw (its deal, its rules, the player's time from the
//! deal and wrong answers), never from anything the client says.
//!
//! A room task watches its own events ([`RoundWatch`], pure) and puts each
//! right answer here ([`RoomSolves`]); a player's entry goes when they leave
//! their room, so there is at most one per seated player.

use std::collections::HashMap;
use std::sync::Mutex;

use krypto_core::cards::Deal;
use krypto_core::protocol::{PlayerId, VerdictKind};
use krypto_core::room::{counts_as_attempt, RoomEvent};
use krypto_core::rules::Rules;

/// A round a player solved in a room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RoomSolve {
    /// The room's code.
    pub(crate) room: String,
    /// The round, as `round_started` numbered it.
    pub(crate) round: u32,
    /// The hand.
    pub(crate) deal: Deal,
    /// The room's rule set.
    pub(crate) rules: Rules,
    /// From the deal to the right answer, on the room's clock.
    pub(crate) elapsed_ms: u64,
    /// The player's wrong answers at the hand before it (real attempts:
    /// complete formulas over the cards; locked-out and too-late ones are
    /// not read, so not counted).
    pub(crate) misses: u32,
}

/// What one room task knows of its round in play.
#[derive(Debug, Default)]
pub(crate) struct RoundWatch {
    /// The round in play and its hand.
    dealt: Option<(u32, Deal)>,
    /// Wrong answers per player in it (at most one entry per member).
    misses: HashMap<PlayerId, u32>,
}

impl RoundWatch {
    /// The right answers among `events` of the room `room` (rules
    /// `rules`), each made a [`RoomSolve`]. A right "no solution" claim is
    /// none: such a hand has nothing to race on.
    pub(crate) fn observe(
        &mut self,
        room: &str,
        rules: Rules,
        events: &[RoomEvent],
    ) -> Vec<(PlayerId, RoomSolve)> {
        let mut solved = Vec::new();
        for event in events {
            match event {
                RoomEvent::RoundStarted {
                    round,
                    objective,
                    cards,
                } => {
                    let deal = Deal {
                        objective: *objective,
                        hand: cards.clone(),
                    };
                    self.dealt = Some((*round, deal));
                    self.misses.clear();
                }
                RoomEvent::Attempt {
                    round,
                    player,
                    formula,
                    accepted,
                    error,
                    elapsed_ms,
                } => {
                    let Some((dealt, deal)) = &self.dealt else {
                        continue;
                    };
                    if dealt != round {
                        continue;
                    }
                    if *accepted {
                        if formula.is_some() {
                            let solve = RoomSolve {
                                room: room.to_owned(),
                                round: *round,
                                deal: deal.clone(),
                                rules,
                                elapsed_ms: *elapsed_ms,
                                misses: self.misses.get(player).copied().unwrap_or(0),
                            };
                            solved.push((*player, solve));
                        }
                    } else if !matches!(
                        error,
                        Some(VerdictKind::LockedOut | VerdictKind::RoundOver)
                    ) && counts_as_attempt(formula.as_deref(), false, &deal.hand)
                    {
                        let n = self.misses.entry(*player).or_insert(0);
                        *n = n.saturating_add(1);
                    }
                }
                _ => {}
            }
        }
        solved
    }
}

/// The last round each seated player solved, server-wide.
#[derive(Debug, Default)]
pub(crate) struct RoomSolves {
    by_player: Mutex<HashMap<PlayerId, RoomSolve>>,
}

impl RoomSolves {
    /// `player` solved `solve` (it replaces their earlier one).
    pub(crate) fn solved(&self, player: PlayerId, solve: RoomSolve) {
        if let Ok(mut map) = self.by_player.lock() {
            map.insert(player, solve);
        }
    }

    /// `player`'s solve of `round`, if that is the last round they solved.
    pub(crate) fn of(&self, player: PlayerId, round: u32) -> Option<RoomSolve> {
        let map = self.by_player.lock().ok()?;
        map.get(&player).filter(|s| s.round == round).cloned()
    }

    /// `player` left the room `room`: its rounds are no longer theirs to
    /// send (and the entry would otherwise stay for good).
    pub(crate) fn forget(&self, player: PlayerId, room: &str) {
        if let Ok(mut map) = self.by_player.lock() {
            if map.get(&player).is_some_and(|s| s.room == room) {
                map.remove(&player);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANN: PlayerId = PlayerId(1);
    const BEN: PlayerId = PlayerId(2);

    fn dealt(round: u32) -> RoomEvent {
        RoomEvent::RoundStarted {
            round,
            objective: 10,
            cards: vec![1, 2, 3, 4, 5],
        }
    }

    fn attempt(round: u32, player: PlayerId, formula: &str, accepted: bool) -> RoomEvent {
        RoomEvent::Attempt {
            round,
            player,
            formula: Some(formula.to_owned()),
            accepted,
            error: (!accepted).then_some(VerdictKind::WrongValue),
            elapsed_ms: 7_000,
        }
    }

    #[test]
    fn a_right_answer_is_a_solve_with_the_wrong_ones_before_it() {
        let mut watch = RoundWatch::default();
        let events = [
            dealt(1),
            attempt(1, ANN, "1+2+3+4+5", false),
            attempt(1, ANN, "1+1", false),
            attempt(1, ANN, "1*2+3+5-4", false),
            attempt(1, BEN, "(1+2+3+4)*5/5", true),
        ];
        let solved = watch.observe("ABCDE", Rules::Free, &events);
        assert_eq!(solved.len(), 1);
        let (who, solve) = &solved[0];
        assert_eq!(*who, BEN);
        assert_eq!((solve.round, solve.elapsed_ms, solve.misses), (1, 7_000, 0));
        // Ann's two real attempts count; `1+1` is not one.
        let later = watch.observe("ABCDE", Rules::Free, &[attempt(1, ANN, "x", true)]);
        assert_eq!(later[0].1.misses, 2);
        // A new round forgets the misses; an answer to an old round is none.
        let next = watch.observe(
            "ABCDE",
            Rules::Free,
            &[dealt(2), attempt(1, ANN, "x", true)],
        );
        assert!(next.is_empty());
    }

    #[test]
    fn a_players_solve_is_forgotten_when_they_leave_that_room() {
        let solves = RoomSolves::default();
        let mut watch = RoundWatch::default();
        for (who, solve) in watch.observe(
            "ABCDE",
            Rules::Free,
            &[dealt(3), attempt(3, ANN, "x", true)],
        ) {
            solves.solved(who, solve);
        }
        assert!(solves.of(ANN, 2).is_none());
        assert_eq!(solves.of(ANN, 3).map(|s| s.deal.objective), Some(10));
        solves.forget(ANN, "OTHER");
        assert!(solves.of(ANN, 3).is_some());
        solves.forget(ANN, "ABCDE");
        assert!(solves.of(ANN, 3).is_none());
    }
}
