//! Fair play on the server: what a flag does. The signals themselves are
//! pure and live in `krypto_core::fair_play`; here they are fed and acted
//! on.
//!
//! - [`signals`]: the task that turns each rated match's right answers into
//!   [`Answer`]s (counting each hand's solutions off the rooms' path), keeps
//!   each player's window of them, runs `assess` and raises flags;
//!   [`FairPlay::note_answer`] is how other rated play (the daily, runs,
//!   challenges) feeds it.
//! - [`review`]: the operator's `krypto-server review` (list, show, clear,
//!   ban), each decision logged with its time.
//!
//! A flag is never a ban: a flagged player is off every public board at
//! once (the boards' queries leave them out), their rated matches are
//! marked, and they play on. Their profile says nothing.

pub mod review;
pub mod signals;

use krypto_core::cards::Deal;
use krypto_core::fair_play::FairPlaySettings;
use krypto_core::protocol::PlayerId;
use krypto_core::rules::Rules;
use krypto_core::settings::Variant;
use tokio::sync::mpsc;

use crate::db::Db;
use crate::scores::rated_play::{RatedMatch, RatedPlay};
use crate::scores::recorder::Recorder;

/// Answers from other rated play waiting for the signals.
const QUEUE: usize = 1024;

/// The handle rated play feeds the signals through; cheap to clone.
#[derive(Debug, Clone)]
pub struct FairPlay {
    answers: mpsc::Sender<(PlayerId, Played)>,
}

/// A right answer outside a room's match, as the modes know it: the
/// signals' task counts the hand's solutions (off the player's path) and
/// makes the [`krypto_core::fair_play::Answer`] of it.
#[derive(Debug, Clone)]
pub struct Played {
    /// When the server accepted it, in UTC milliseconds.
    pub answered_at_ms: u64,
    /// From the moment the hand was first sent to that moment (penalties
    /// not added: the player's own time).
    pub elapsed_ms: u64,
    /// The hand.
    pub deal: Deal,
    /// Its variant (the band of its solution count).
    pub variant: Variant,
    /// The rule set its solutions are counted under.
    pub rules: Rules,
    /// The right answer.
    pub formula: String,
}

impl FairPlay {
    /// Starts the signals' task: rated matches come from `rated` (the
    /// rooms'), other answers through the handle returned.
    pub(crate) fn start(
        db: Db,
        settings: FairPlaySettings,
        recorder: Recorder,
        counters: [metrics::Counter; 3],
    ) -> (FairPlay, RatedPlay) {
        let (rated_play, rated) = RatedPlay::channel();
        let (tx, answers) = mpsc::channel(QUEUE);
        let task = signals::Signals {
            db,
            settings,
            recorder,
            counters,
        };
        tokio::spawn(task.run(rated, answers));
        (FairPlay { answers: tx }, rated_play)
    }

    /// A right answer `player` gave in rated play other than a room's match
    /// (the daily, a run, a challenge): assessed with the rest of theirs.
    /// Never waits; dropped (logged) if the signals are far behind.
    pub fn note_answer(&self, player: PlayerId, answer: Played) {
        if let Err(e) = self.answers.try_send((player, answer)) {
            tracing::warn!(error = %e, "an answer did not reach the fair-play signals");
        }
    }
}

/// A rated match, for tests of the signals' task.
pub(crate) type Rated = RatedMatch;
