//! Fair play on the server: what a flag does. The signals themselves are
//! pure and live in `krypto_core::fair_play`; here they are fed and acted
//! on.
//!
//! - [`signals`]: the task that turns each rated match's right answers into
//!   [`Answer`]s (counting each hand's solutions off the rooms' path), keeps
//!   each player's window of them, runs `assess` and raises flags;
//!   [`FairPlay::note_answer`] is how other rated play (the daily, runs,
//!   challenges) feeds it, through a queue sized from the connection cap
//!   that makes a sender wait rather than drop an answer.
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
use tokio::sync::mpsc::error::TrySendError;

use crate::db::Db;
use crate::ops::metrics::FairPlayAnswers;
use crate::scores::rated_play::{RatedMatch, RatedPlay};
use crate::scores::recorder::Recorder;

/// The least room for answers waiting for the signals, whatever the
/// connection cap.
pub const MIN_QUEUE: usize = 64;

/// Room for answers from other rated play waiting for the signals: one per
/// connection the server holds (`--max-connections`), so a rush of every
/// player answering at once fits without anyone waiting; never below
/// [`MIN_QUEUE`].
pub fn queue_for(max_connections: usize) -> usize {
    max_connections.max(MIN_QUEUE)
}

/// The handle rated play feeds the signals through; cheap to clone.
#[derive(Debug, Clone)]
pub struct FairPlay {
    answers: mpsc::Sender<(PlayerId, Played)>,
    counts: FairPlayAnswers,
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
    /// rooms'), other answers through the handle returned, with room for
    /// `queue` of them.
    pub(crate) fn start(
        db: Db,
        settings: FairPlaySettings,
        recorder: Recorder,
        counters: [metrics::Counter; 3],
        answer_counts: FairPlayAnswers,
        queue: usize,
    ) -> (FairPlay, RatedPlay) {
        let (rated_play, rated) = RatedPlay::channel();
        let (tx, answers) = mpsc::channel(queue.max(1));
        let task = signals::Signals {
            db,
            settings,
            recorder,
            counters,
            answers: answer_counts.clone(),
            solutions: signals::SolutionCounts::default(),
        };
        tokio::spawn(task.run(rated, answers));
        (
            FairPlay {
                answers: tx,
                counts: answer_counts,
            },
            rated_play,
        )
    }

    /// A right answer `player` gave in rated play other than a room's match
    /// (the daily, a run, a challenge): assessed with the rest of theirs.
    /// Never dropped while the server runs: when the signals are a whole
    /// queue behind, this waits for room (counted), so what waits is
    /// bounded by the queue and one answer per connection, and the player
    /// who answers faster than the signals keep up is the one held back.
    pub async fn note_answer(&self, player: PlayerId, answer: Played) {
        let full = match self.answers.try_send((player, answer)) {
            Ok(()) => return,
            Err(TrySendError::Full(full)) => full,
            Err(TrySendError::Closed(_)) => return self.lost(),
        };
        self.counts.waited.increment(1);
        if self.answers.send(full).await.is_err() {
            self.lost();
        }
    }

    fn lost(&self) {
        self.counts.dropped.increment(1);
        tracing::warn!("an answer did not reach the fair-play signals: they have stopped");
    }
}

/// A rated match, for tests of the signals' task.
pub(crate) type Rated = RatedMatch;
