//! The directory queue: the lobby's seats, unseats and closed rooms, sent
//! without waiting and written by one task in batches (one transaction for
//! whatever queued meanwhile, like the recorder's group commit), so a seat
//! costs the room nothing and a crowd of joins costs a few transactions.
//! A batch the database could not take is tried again, with what queued
//! meanwhile folded in after it, until it is written: a room closed while
//! the database was away must not stay listed.

use std::collections::HashMap;
use std::time::Duration;

use krypto_core::protocol::PlayerId;
use tokio::sync::{mpsc, oneshot};

use crate::db::directory::{Changes, Directory};

/// Most changes folded into one transaction.
const MAX_BATCH: usize = 4096;

/// The first wait before a failed batch is tried again; doubled after each
/// failure.
const RETRY_FIRST: Duration = Duration::from_millis(100);

/// The longest wait between two tries.
const RETRY_MAX: Duration = Duration::from_secs(5);

/// One change for the directory.
#[derive(Debug)]
pub(crate) enum Change {
    /// `player` is a member of room `code`.
    Seat(PlayerId, String),
    /// `player` left room `code`.
    Unseat(PlayerId, String),
    /// Room `code` was locked (true) or unlocked.
    Locked(String, bool),
    /// Room `code` closed.
    Closed(String),
    /// Answer once everything queued before is written.
    Flush(oneshot::Sender<()>),
}

/// The lobby's end of the queue; cheap to clone, never blocks.
#[derive(Debug, Clone)]
pub(crate) struct DirectoryQueue(mpsc::UnboundedSender<Change>);

impl DirectoryQueue {
    /// A queue and the receiver [`write`] drains.
    pub(crate) fn new() -> (DirectoryQueue, mpsc::UnboundedReceiver<Change>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (DirectoryQueue(tx), rx)
    }

    fn send(&self, change: Change) {
        // After shutdown nobody writes the directory any more: nothing to do.
        let _ = self.0.send(change);
    }

    /// `player` is a member of room `code`.
    pub(crate) fn seat(&self, player: PlayerId, code: &str) {
        self.send(Change::Seat(player, code.to_owned()));
    }

    /// `player` left room `code`.
    pub(crate) fn unseat(&self, player: PlayerId, code: &str) {
        self.send(Change::Unseat(player, code.to_owned()));
    }

    /// Room `code` was locked or unlocked.
    pub(crate) fn locked(&self, code: &str, locked: bool) {
        self.send(Change::Locked(code.to_owned(), locked));
    }

    /// Room `code` closed (or was never opened after its code was reserved).
    pub(crate) fn closed(&self, code: &str) {
        self.send(Change::Closed(code.to_owned()));
    }

    /// Waits until everything queued so far is written (or the writer
    /// stopped).
    pub(crate) async fn flush(&self) {
        let (done, wait) = oneshot::channel();
        self.send(Change::Flush(done));
        let _ = wait.await;
    }
}

/// Folds changes, in order, into what the database must end up holding.
#[derive(Debug, Default)]
pub(crate) struct Fold {
    seat: HashMap<PlayerId, String>,
    unseat: HashMap<PlayerId, String>,
    locked: HashMap<String, bool>,
    closed: Vec<String>,
}

impl Fold {
    /// Adds one change after the ones already folded.
    pub(crate) fn push(&mut self, change: &Change) {
        match change {
            Change::Seat(player, code) => {
                self.unseat.remove(player);
                self.seat.insert(*player, code.clone());
            }
            Change::Unseat(player, code) => match self.seat.get(player) {
                // A later seat elsewhere already replaces this one.
                Some(seated) if seated != code => {}
                _ => {
                    self.seat.remove(player);
                    self.unseat.insert(*player, code.clone());
                }
            },
            Change::Locked(code, locked) => {
                self.locked.insert(code.clone(), *locked);
            }
            Change::Closed(code) => {
                self.seat.retain(|_, c| c != code);
                self.unseat.retain(|_, c| c != code);
                self.locked.remove(code);
                self.closed.push(code.clone());
            }
            Change::Flush(_) => {}
        }
    }

    /// The batch to write: closed rooms first, then unseats, then seats.
    pub(crate) fn changes(&self) -> Changes {
        let mut changes = Changes {
            seat: self.seat.iter().map(|(p, c)| (p.0, c.clone())).collect(),
            unseat: self.unseat.iter().map(|(p, c)| (p.0, c.clone())).collect(),
            locked: self.locked.iter().map(|(c, l)| (c.clone(), *l)).collect(),
            closed: self.closed.clone(),
        };
        changes.seat.sort();
        changes.unseat.sort();
        changes.locked.sort();
        changes
    }
}

/// The writer task: drains the queue into batches until every sender is
/// gone. A batch the database could not take stays, and whatever queues
/// meanwhile is folded in after it, until it is written. A flush is
/// answered after the next try, written or not (a node stopping while the
/// database is away must not wait for it forever).
pub(crate) async fn write(directory: Directory, mut rx: mpsc::UnboundedReceiver<Change>) {
    let mut fold = Fold::default();
    let mut count = 0;
    let mut wait = RETRY_FIRST;
    loop {
        if count == 0 {
            let Some(first) = rx.recv().await else { return };
            count += fold_in(&mut fold, first);
        }
        let mut flushes = Vec::new();
        while count < MAX_BATCH {
            let Ok(change) = rx.try_recv() else { break };
            if let Change::Flush(done) = change {
                flushes.push(done);
            } else {
                count += fold_in(&mut fold, change);
            }
        }
        let changes = fold.changes();
        let written = changes.is_empty() || {
            match directory.apply(&changes).await {
                Ok(()) => {
                    tracing::debug!(changes = count, "directory written");
                    true
                }
                Err(e) => {
                    tracing::warn!(error = %e, changes = count, "directory not written yet");
                    false
                }
            }
        };
        for done in flushes {
            let _ = done.send(());
        }
        if written {
            fold = Fold::default();
            count = 0;
            wait = RETRY_FIRST;
        } else {
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(RETRY_MAX);
        }
    }
}

/// Folds `change` in (a flush is answered at once: nothing is waiting);
/// returns how many changes that adds.
fn fold_in(fold: &mut Fold, change: Change) -> usize {
    match change {
        Change::Flush(done) => {
            let _ = done.send(());
            0
        }
        change => {
            fold.push(&change);
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(changes: &[Change]) -> Changes {
        let mut f = Fold::default();
        for c in changes {
            f.push(c);
        }
        f.changes()
    }

    #[test]
    fn the_last_word_on_each_player_wins() {
        let (ann, ben) = (PlayerId(1), PlayerId(2));
        let changes = fold(&[
            Change::Seat(ann, "AAAAA".into()),
            Change::Unseat(ann, "AAAAA".into()),
            Change::Seat(ann, "BBBBB".into()),
            // A stale unseat from the old room does not undo the new seat.
            Change::Unseat(ann, "AAAAA".into()),
            Change::Seat(ben, "CCCCC".into()),
            Change::Unseat(ben, "CCCCC".into()),
        ]);
        assert_eq!(changes.seat, vec![(1, "BBBBB".to_owned())]);
        assert_eq!(changes.unseat, vec![(2, "CCCCC".to_owned())]);
    }

    #[test]
    fn a_closed_room_takes_its_seats_along() {
        let changes = fold(&[
            Change::Seat(PlayerId(1), "AAAAA".into()),
            Change::Seat(PlayerId(2), "BBBBB".into()),
            Change::Closed("AAAAA".into()),
        ]);
        assert_eq!(changes.seat, vec![(2, "BBBBB".to_owned())]);
        assert_eq!(changes.closed, vec!["AAAAA".to_owned()]);
    }

    #[test]
    fn the_last_lock_of_a_room_wins_and_a_closed_room_has_none() {
        let changes = fold(&[
            Change::Locked("AAAAA".into(), true),
            Change::Locked("BBBBB".into(), true),
            Change::Locked("AAAAA".into(), false),
            Change::Locked("CCCCC".into(), true),
            Change::Closed("CCCCC".into()),
        ]);
        assert_eq!(
            changes.locked,
            vec![("AAAAA".to_owned(), false), ("BBBBB".to_owned(), true)]
        );
    }
}
