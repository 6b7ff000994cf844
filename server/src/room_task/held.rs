//! A round's dealt hand and attempts, held in the room until its result.
//!
//! They announce nothing, so nothing waits for them to be durable; and they
//! are most of what a crowd writes (15,000 players send thousands of
//! attempts a second, and finish about a hundred and fifty rounds). Sent one
//! by one they crowded the recorder's queue: a win's commit waited behind
//! thousands of other rooms' attempts, and a room whose attempt met a full
//! queue stopped judging until there was room. Held here, they ride in the
//! request of the round's result — one request per round instead of one
//! per attempt, in the order they happened — and a wrong answer's verdict
//! waits for nothing.
//!
//! What a room holds is bounded: past [`MOST`] writes (a long round
//! with many players) they are sent ahead, in order, and the room waits for
//! room in the recorder's queue as any request does. A room that ends or
//! is saved sends what it holds before it goes. A crash loses the held
//! writes of the rounds in play (never a result: results are committed
//! before they are announced).

use crate::db::scores::Write;
use crate::recorder::{RecordError, Recorder};

/// Writes a room holds before it sends them ahead of the result.
const MOST: usize = 512;

/// The writes waiting for the room's next result, oldest first.
#[derive(Debug, Default)]
pub(super) struct Held {
    writes: Vec<Write>,
}

impl Held {
    /// Whether a write may wait for the next result: a dealt hand or an
    /// attempt. A match's start or abandonment is sent at once.
    pub(super) fn may_hold(write: &Write) -> bool {
        matches!(write, Write::StartRound(_) | Write::Attempt(_))
    }

    /// Holds `writes`; past [`MOST`] sends everything held (waiting for
    /// room in the recorder's queue).
    pub(super) async fn hold(
        &mut self,
        recorder: &Recorder,
        writes: Vec<Write>,
    ) -> Result<(), RecordError> {
        self.writes.extend(writes);
        if self.writes.len() >= MOST {
            self.send(recorder).await?;
        }
        Ok(())
    }

    /// Everything held, followed by `writes`: one request, in order.
    pub(super) fn before(&mut self, writes: Vec<Write>) -> Vec<Write> {
        let mut all = std::mem::take(&mut self.writes);
        all.extend(writes);
        all
    }

    /// Sends what is held, without waiting for its commit.
    pub(super) async fn send(&mut self, recorder: &Recorder) -> Result<(), RecordError> {
        if self.writes.is_empty() {
            return Ok(());
        }
        recorder.submit(std::mem::take(&mut self.writes)).await
    }
}
