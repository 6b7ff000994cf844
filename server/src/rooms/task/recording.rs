//! What a room records: the translation from the room's events to database
//! writes. Pure — the match id comes from the caller's `mint` and the time
//! from `at_ms` — so it is tested here without a room task, a clock or a
//! database.

use krypto_core::formula::MAX_LEN;
use krypto_core::protocol::VerdictKind;
use krypto_core::room::RoomEvent;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::db::scores::{
    AttemptRecord, FinalPlace, MatchEnd, NewMatch, RoundOutcome, RoundResult, RoundStart, Write,
};

/// What is kept of an attempt's text: nothing of one refused unread (locked
/// out, round over), and never more than a formula may be long — a refused
/// `too_long` attempt would otherwise store the whole 16 KiB frame.
fn stored_text(formula: Option<&str>, verdict: Option<VerdictKind>) -> Option<String> {
    if matches!(
        verdict,
        Some(VerdictKind::LockedOut | VerdictKind::RoundOver)
    ) {
        return None;
    }
    let text = formula?;
    let end = text
        .char_indices()
        .nth(MAX_LEN)
        .map_or(text.len(), |(i, _)| i);
    Some(text[..end].to_owned())
}

/// What the room remembers of the match it is recording.
#[derive(Debug, Serialize, Deserialize)]
struct Current {
    /// The match's id, minted when it started.
    id: Uuid,
    /// The hand being played, for its result's row.
    round: Option<RoundStart>,
    /// Attempts recorded in this match so far: the next one's number.
    #[serde(default)]
    attempts: u64,
}

/// The writes for one batch of events.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct ToRecord {
    /// In the order the events happened.
    pub writes: Vec<Write>,
    /// A round's result or a match's end is among them: they must be
    /// committed before anyone is told.
    pub must_commit: bool,
}

/// A room's recording state across its matches; saved with the room when
/// the server stops gracefully, so the match goes on under its id.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct MatchLog {
    current: Option<Current>,
}

impl MatchLog {
    /// The match being recorded, if any.
    pub fn match_id(&self) -> Option<Uuid> {
        self.current.as_ref().map(|c| c.id)
    }

    /// The writes recording `events` of room `room_code`, happening at
    /// `at_ms` (UTC ms). A new match takes its id from `mint`.
    pub fn translate(
        &mut self,
        room_code: &str,
        events: &[RoomEvent],
        at_ms: i64,
        mint: &mut impl FnMut() -> Uuid,
    ) -> ToRecord {
        let mut out = ToRecord::default();
        for event in events {
            match event {
                RoomEvent::MatchStarted { settings, players } => {
                    self.current = match serde_json::to_value(settings) {
                        Ok(settings) => {
                            let id = mint();
                            out.writes.push(Write::StartMatch(NewMatch {
                                id,
                                room_code: room_code.to_owned(),
                                settings,
                                players: players.clone(),
                                at_ms,
                            }));
                            Some(Current {
                                id,
                                round: None,
                                attempts: 0,
                            })
                        }
                        Err(e) => {
                            tracing::error!(room = %room_code, error = %e, "match not recorded: its settings do not serialize");
                            None
                        }
                    };
                }
                RoomEvent::RoundStarted {
                    round,
                    objective,
                    cards,
                } => {
                    if let Some(current) = &mut self.current {
                        let start = RoundStart {
                            match_id: current.id,
                            round: *round,
                            objective: *objective,
                            cards: cards.clone(),
                            at_ms,
                        };
                        current.round = Some(start.clone());
                        out.writes.push(Write::StartRound(start));
                    }
                }
                RoomEvent::Attempt {
                    round,
                    player,
                    formula,
                    accepted,
                    error,
                    elapsed_ms,
                } => {
                    if let Some(current) = &mut self.current {
                        current.attempts += 1;
                        out.writes.push(Write::Attempt(AttemptRecord {
                            match_id: current.id,
                            round: *round,
                            player: *player,
                            formula: stored_text(formula.as_deref(), *error),
                            accepted: *accepted,
                            verdict: error.map(|kind| kind.as_str().to_owned()),
                            elapsed_ms: *elapsed_ms,
                            at_ms,
                            seq: current.attempts,
                        }));
                    }
                }
                RoomEvent::RoundWon(win) => self.round_over(
                    &mut out,
                    RoundOutcome::Won {
                        winner: win.winner,
                        formula: win.formula.clone(),
                        elapsed_ms: win.elapsed_ms,
                        points: win.points,
                    },
                    at_ms,
                ),
                RoomEvent::RoundTimedOut {
                    solution,
                    solutions,
                    ..
                } => self.round_over(
                    &mut out,
                    RoundOutcome::TimedOut {
                        solution: solution.clone(),
                        solutions: *solutions,
                    },
                    at_ms,
                ),
                RoomEvent::MatchFinished(result) => {
                    if let Some(current) = self.current.take() {
                        out.writes.push(Write::FinishMatch(MatchEnd {
                            match_id: current.id,
                            rounds_played: result.rounds_played,
                            standings: result
                                .standings
                                .iter()
                                .map(|s| FinalPlace {
                                    player: s.player,
                                    score: s.score,
                                    rank: s.rank,
                                    // The room counts real attempts at the hand
                                    // only (`krypto_core::room::counts_as_attempt`).
                                    attempted: result
                                        .entrants
                                        .iter()
                                        .any(|e| e.player == s.player && e.attempts > 0),
                                })
                                .collect(),
                            at_ms,
                        }));
                        out.must_commit = true;
                    }
                }
                RoomEvent::MatchAbandoned => {
                    if let Some(current) = self.current.take() {
                        out.writes.push(Write::AbandonMatch {
                            match_id: current.id,
                            at_ms,
                        });
                    }
                }
            }
        }
        out
    }

    fn round_over(&mut self, out: &mut ToRecord, outcome: RoundOutcome, at_ms: i64) {
        if let Some(start) = self.current.as_mut().and_then(|c| c.round.take()) {
            out.writes.push(Write::RoundResult(RoundResult {
                start,
                outcome,
                at_ms,
            }));
            out.must_commit = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use krypto_core::protocol::{PlayerId, RoundWin, VerdictKind};
    use krypto_core::protocol::{RoomSettings, Standing};
    use krypto_core::room::{Entrant, MatchResult};

    use super::*;

    const ANN: PlayerId = PlayerId(1);
    const BEN: PlayerId = PlayerId(2);

    /// Room ABCDE's match log, with match ids minted 1, 2, 3, …
    #[derive(Default)]
    struct Room {
        log: MatchLog,
        minted: u128,
    }

    impl Room {
        /// What the log records for `events` happening at `at_ms`.
        fn record(&mut self, events: &[RoomEvent], at_ms: i64) -> ToRecord {
            let minted = &mut self.minted;
            let mut mint = || {
                *minted += 1;
                Uuid::from_u128(*minted)
            };
            self.log.translate("ABCDE", events, at_ms, &mut mint)
        }
    }

    fn started() -> RoomEvent {
        RoomEvent::MatchStarted {
            settings: RoomSettings::default(),
            players: vec![ANN, BEN],
        }
    }

    fn dealt(round: u32) -> RoomEvent {
        RoomEvent::RoundStarted {
            round,
            objective: 15,
            cards: vec![1, 2, 3, 4, 5],
        }
    }

    fn attempt(player: PlayerId, accepted: bool) -> RoomEvent {
        RoomEvent::Attempt {
            round: 1,
            player,
            formula: Some("1+2".into()),
            accepted,
            error: (!accepted).then_some(VerdictKind::WrongValue),
            elapsed_ms: 900,
        }
    }

    /// The end of a match Ann and Ben played, with how often each tried.
    fn finished(ann_attempts: u32, ben_attempts: u32) -> RoomEvent {
        let standing = |player, score, rank| Standing::unrated(player, "", score, rank);
        RoomEvent::MatchFinished(MatchResult {
            settings: RoomSettings::default(),
            rounds_played: 1,
            standings: vec![standing(ANN, 1, 1), standing(BEN, 0, 2)],
            entrants: vec![
                Entrant {
                    player: ANN,
                    bot: false,
                    attempts: ann_attempts,
                },
                Entrant {
                    player: BEN,
                    bot: false,
                    attempts: ben_attempts,
                },
            ],
        })
    }

    #[test]
    fn a_match_is_recorded_under_the_minted_id_and_results_must_commit() {
        let mut room = Room::default();
        let start = room.record(&[started(), dealt(1)], 1_000);
        assert!(!start.must_commit, "a start and a deal announce nothing");
        let [Write::StartMatch(m), Write::StartRound(r)] = start.writes.as_slice() else {
            panic!("{:?}", start.writes)
        };
        assert_eq!(
            (m.id, m.room_code.as_str(), m.at_ms),
            (Uuid::from_u128(1), "ABCDE", 1_000)
        );
        assert!(m.settings.is_object());
        assert_eq!((r.match_id, r.round, r.at_ms), (m.id, 1, 1_000));

        let wrong = room.record(&[attempt(BEN, false)], 1_500);
        let [Write::Attempt(a)] = wrong.writes.as_slice() else {
            panic!("{:?}", wrong.writes)
        };
        assert_eq!(a.verdict.as_deref(), Some("wrong_value"));
        assert_eq!(a.seq, 1, "attempts are numbered in their match");
        assert!(!wrong.must_commit);

        let won = RoomEvent::RoundWon(RoundWin {
            round: 1,
            winner: ANN,
            formula: Some("1+2+3+4+5".into()),
            no_solution: false,
            elapsed_ms: 1_200,
            points: 1,
        });
        let end = room.record(&[attempt(ANN, true), won, finished(1, 1)], 2_200);
        assert!(end.must_commit);
        let [Write::Attempt(second), Write::RoundResult(result), Write::FinishMatch(fin)] =
            end.writes.as_slice()
        else {
            panic!("{:?}", end.writes)
        };
        assert_eq!(second.seq, 2);
        assert_eq!(result.start, *r, "the result carries the whole deal");
        assert_eq!(result.at_ms, 2_200);
        assert_eq!(fin.match_id, m.id);
        let attempted: Vec<bool> = fin.standings.iter().map(|p| p.attempted).collect();
        assert_eq!(attempted, vec![true, true]);

        // The next match gets a new id.
        let next = room.record(&[started()], 3_000);
        let [Write::StartMatch(m2)] = next.writes.as_slice() else {
            panic!()
        };
        assert_eq!(m2.id, Uuid::from_u128(2));
    }

    #[test]
    fn a_player_who_never_tried_is_marked_so() {
        let mut room = Room::default();
        let out = room.record(
            &[started(), dealt(1), attempt(ANN, false), finished(1, 0)],
            1_000,
        );
        let Some(Write::FinishMatch(fin)) = out.writes.last() else {
            panic!("{:?}", out.writes)
        };
        assert_eq!(
            fin.standings
                .iter()
                .map(|p| (p.player, p.attempted))
                .collect::<Vec<_>>(),
            vec![(ANN, true), (BEN, false)]
        );
    }

    #[test]
    fn nothing_is_recorded_outside_a_match_and_a_timeout_commits() {
        let mut room = Room::default();
        let idle = room.record(&[dealt(1), attempt(ANN, false), finished(1, 0)], 0);
        assert_eq!(idle, ToRecord::default());

        room.record(&[started(), dealt(1)], 0);
        let out = RoomEvent::RoundTimedOut {
            round: 1,
            solution: Some("1+2+3+4+5".into()),
            solutions: 3,
        };
        let timed = room.record(std::slice::from_ref(&out), 10_000);
        assert!(timed.must_commit);
        assert!(matches!(
            timed.writes.as_slice(),
            [Write::RoundResult(RoundResult {
                outcome: RoundOutcome::TimedOut { solutions: 3, .. },
                ..
            })]
        ));
        // A second result for the same deal is never written.
        assert_eq!(room.record(&[out], 10_001), ToRecord::default());

        let gone = room.record(&[RoomEvent::MatchAbandoned], 11_000);
        assert_eq!(
            gone.writes,
            vec![Write::AbandonMatch {
                match_id: Uuid::from_u128(1),
                at_ms: 11_000
            }]
        );
        assert!(!gone.must_commit);
    }
}
