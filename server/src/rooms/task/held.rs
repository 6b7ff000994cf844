//! A room's dealt hands and attempts on their way to the recorder.
//!
//! They announce nothing, so nothing waits for them to be durable; and they
//! are most of what a crowd writes (15,000 players send thousands of
//! attempts a second, and finish about a hundred and fifty rounds). Sent one
//! request each they crowded the recorder's queue, and a room whose attempt
//! met a full queue stopped judging until there was room. A room now holds
//! them and sends [`AHEAD`] at a time as one request, without waiting: when
//! the queue is full it keeps holding them and plays on, so a wrong
//! answer's verdict waits for nothing. A result takes what is held into its
//! own request, in order, so the database sees the room's writes in the
//! order they happened; sending ahead keeps that part small, so a win's
//! commit does not carry the whole round's attempts.
//!
//! What a room holds is bounded: at [`MOST`] writes (a recorder stalled for
//! long) the room waits for room in the queue, as any request does. A room
//! that ends or is saved sends what it holds before it goes. A crash loses
//! the held writes (never a result: results are committed before they are
//! announced).

use crate::db::scores::Write;
use crate::scores::recorder::{RecordError, Recorder};

/// Writes a room sends ahead together, as one request.
const AHEAD: usize = 8;

/// Writes a room holds before it waits for the recorder.
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

    /// Holds `writes`; from [`AHEAD`] held writes on, sends them if the
    /// recorder's queue has room, and at [`MOST`] waits for room.
    pub(super) async fn hold(
        &mut self,
        recorder: &Recorder,
        writes: Vec<Write>,
    ) -> Result<(), RecordError> {
        self.writes.extend(writes);
        if self.writes.len() >= MOST {
            return self.send(recorder).await;
        }
        if self.writes.len() >= AHEAD {
            match recorder.try_submit(std::mem::take(&mut self.writes)) {
                Ok(()) => {}
                Err(Some(writes)) => self.writes = writes,
                Err(None) => return Err(RecordError::Stopped),
            }
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
