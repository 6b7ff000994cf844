//! Practice tables on the server: `practice_start`, `practice_hint`,
//! `practice_submit` and `practice_skip`.
//!
//! A table is krypto-core's [`Practice`], kept by the connection ([`Play`])
//! and nowhere else: one per connection (starting again replaces it), gone
//! with the connection. Nothing here reaches the database, the recorder,
//! the boards or the fair-play signals, and a hand solved here never
//! becomes a challenge: practice is unrated by design (docs/design.md).
//! Each request is one message, so the connection's message budget bounds
//! hints like everything else; what a table holds is one hand and its
//! hint's steps, whatever the client sends.

use krypto_core::cards::secure_rng;
use krypto_core::modes::practice::{Practice, PracticeError, PracticeHand, PracticeOutcome};
use krypto_core::protocol::{Difficulty, ErrorCode, ServerMessage, SolutionEntry, VerdictError};

use super::{Asker, Play};

impl Play {
    /// `practice_start`: a new table on its first hand.
    pub(crate) fn practice_start(&mut self, asker: &Asker<'_>, difficulty: Difficulty) {
        let table = Practice::new(difficulty, &mut secure_rng());
        asker.reply(hand_message(&table));
        self.practice = Some(table);
    }

    /// `practice_hint`: the next step of the hand's hint solution.
    pub(crate) fn practice_hint(&mut self, asker: &Asker<'_>) {
        let Some(table) = self.practice.as_mut() else {
            return no_table(asker);
        };
        match table.hint() {
            Ok(step) => {
                let hand = table.hand();
                asker.reply(ServerMessage::PracticeHint {
                    hand: hand.number,
                    step: step.to_string(),
                    steps_shown: hand.shown(),
                    steps: hand.steps(),
                });
            }
            Err(e) => refused(asker, &e),
        }
    }

    /// `practice_submit`: judges an answer to the hand on the table.
    pub(crate) fn practice_submit(&mut self, asker: &Asker<'_>, hand: u32, formula: &str) {
        let Some(table) = self.practice.as_mut() else {
            return no_table(asker);
        };
        let judged = table.submit(hand, formula, &mut secure_rng());
        match judged {
            Ok(PracticeOutcome::Refused(error)) => asker.reply(refused_verdict(hand, error)),
            Ok(PracticeOutcome::Solved {
                value,
                solved,
                solutions,
            }) => {
                asker.reply(ServerMessage::Verdict {
                    round: solved.number,
                    accepted: true,
                    value: Some(value.to_string()),
                    error: None,
                    locked_out_ms: None,
                });
                asker.reply(ended(&solved, true, solutions));
                asker.reply(hand_message(table));
            }
            Err(e) => refused(asker, &e),
        }
    }

    /// `practice_skip`: the hand's solutions, then the next hand.
    pub(crate) fn practice_skip(&mut self, asker: &Asker<'_>) {
        let Some(table) = self.practice.as_mut() else {
            return no_table(asker);
        };
        let (skipped, solutions) = table.skip(&mut secure_rng());
        asker.reply(ended(&skipped, false, solutions));
        asker.reply(hand_message(table));
    }
}

/// The `practice` message of the hand on `table`.
fn hand_message(table: &Practice) -> ServerMessage {
    let hand = table.hand();
    ServerMessage::Practice {
        hand: hand.number,
        objective: hand.deal.objective,
        cards: hand.deal.hand.clone(),
        difficulty: table.difficulty(),
        steps: hand.steps(),
    }
}

/// The `practice_solutions` of a hand that ended.
fn ended(hand: &PracticeHand, solved: bool, solutions: Vec<SolutionEntry>) -> ServerMessage {
    ServerMessage::PracticeSolutions {
        hand: hand.number,
        objective: hand.deal.objective,
        cards: hand.deal.hand.clone(),
        solved,
        hints: hand.shown(),
        solutions,
    }
}

/// The `verdict` of a refused answer: nothing changes, nothing is lost.
fn refused_verdict(hand: u32, error: VerdictError) -> ServerMessage {
    ServerMessage::Verdict {
        round: hand,
        accepted: false,
        value: None,
        error: Some(error),
        locked_out_ms: None,
    }
}

/// A request the table refuses.
fn refused(asker: &Asker<'_>, e: &PracticeError) {
    let code = match e {
        PracticeError::NoMoreHints { .. } => ErrorCode::WrongState,
        PracticeError::WrongHand { .. } => ErrorCode::WrongRound,
    };
    asker.error(code, e.to_string());
}

/// A practice request with no table on this connection.
fn no_table(asker: &Asker<'_>) {
    asker.error(
        ErrorCode::WrongState,
        "sit down at a practice table first (practice_start)",
    );
}
