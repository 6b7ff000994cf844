//! Rated matches on their way to the fair-play signals (`crate::fair_play`,
//! a section above the rooms): a room that has recorded a rated match
//! names it and its rated players here, and never waits for the signals.

use krypto_core::protocol::PlayerId;
use tokio::sync::mpsc;
use uuid::Uuid;

/// Rated matches waiting for the signals; beyond this one is dropped
/// (logged), never waited for: a verdict never slows for fair play.
pub const QUEUE: usize = 1024;

/// A rated match, recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RatedMatch {
    /// The match.
    pub match_id: Uuid,
    /// The players it rated.
    pub players: Vec<PlayerId>,
}

/// The handle rooms name their rated matches through; cheap to clone.
#[derive(Debug, Clone)]
pub struct RatedPlay {
    tx: mpsc::Sender<RatedMatch>,
}

impl RatedPlay {
    /// A handle and the receiving end the signals read.
    pub fn channel() -> (RatedPlay, mpsc::Receiver<RatedMatch>) {
        let (tx, rx) = mpsc::channel(QUEUE);
        (RatedPlay { tx }, rx)
    }

    /// `rated` was recorded: its right answers go to the signals.
    pub fn finished(&self, rated: RatedMatch) {
        if let Err(e) = self.tx.try_send(rated) {
            tracing::warn!(error = %e, "a rated match did not reach the fair-play signals");
        }
    }
}
