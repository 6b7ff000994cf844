//! A room's writes that announce nothing (dealt hands, attempts, match
//! starts), on their way to the recorder.
//!
//! They go straight into the recorder's queue when it has room. When it is
//! full — a commit is slow, a SQLite checkpoint or an outage is under way —
//! they wait here, in order, and the room goes on: a wrong answer's verdict
//! never waits for the recorder. A result that must be committed before it
//! is announced first sends everything waiting here, so the room's writes
//! reach the database in the order they happened.

use std::collections::VecDeque;

use crate::db::scores::Write;
use crate::recorder::{Full, RecordError, Recorder, Slot};

/// Requests one room may hold while the recorder's queue is full; beyond
/// that the room waits for the recorder, as every room did before (a bound
/// on memory, far above what a room produces while a commit is slow).
const MOST: usize = 1024;

/// The writes waiting for room in the recorder's queue, oldest first.
#[derive(Debug, Default)]
pub(super) struct Backlog {
    waiting: VecDeque<Vec<Write>>,
}

impl Backlog {
    /// Whether nothing waits.
    pub(super) fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Hands `writes` to the recorder behind what already waits, without
    /// waiting unless this room holds [`MOST`] requests already.
    pub(super) async fn queue(
        &mut self,
        recorder: &Recorder,
        writes: Vec<Write>,
    ) -> Result<(), RecordError> {
        self.waiting.push_back(writes);
        self.send_what_fits(recorder)?;
        if self.waiting.len() > MOST {
            self.flush(recorder).await?;
        }
        Ok(())
    }

    /// Sends the oldest waiting request into `slot` (room the caller waited
    /// for), then as many more as fit without waiting.
    pub(super) fn send_into(
        &mut self,
        slot: Slot<'_>,
        recorder: &Recorder,
    ) -> Result<(), RecordError> {
        if let Some(writes) = self.waiting.pop_front() {
            slot.submit(writes);
        }
        self.send_what_fits(recorder)
    }

    /// Waits until every waiting request is in the recorder's queue.
    pub(super) async fn flush(&mut self, recorder: &Recorder) -> Result<(), RecordError> {
        while !self.waiting.is_empty() {
            let slot = recorder.reserve().await?;
            self.send_into(slot, recorder)?;
        }
        Ok(())
    }

    /// Queues waiting requests, oldest first, until the queue is full.
    fn send_what_fits(&mut self, recorder: &Recorder) -> Result<(), RecordError> {
        while let Some(writes) = self.waiting.pop_front() {
            match recorder.try_submit(writes) {
                Ok(()) => {}
                Err(Full::Queue(writes)) => {
                    self.waiting.push_front(writes);
                    return Ok(());
                }
                Err(Full::Stopped) => return Err(RecordError::Stopped),
            }
        }
        Ok(())
    }
}
