//! The recorder's journal: where writes go while the database cannot take
//! them, so a result is durable (and may be announced) during an outage.
//!
//! An append-only file of records, each `[length: u32 LE][CRC-32C of the
//! payload: u32 LE][payload]`, the payload one group-commit batch as JSON
//! ([`Entry`]). Every append is fsync'd before the recorder answers the
//! batch's requests: one fsync per batch, as a database commit would cost.
//! A record cut short by a crash (or a full disk) fails its length or its
//! checksum: it and anything after it are ignored and cut off, and were
//! never answered, so never announced.
//!
//! The recorder replays the journal into the database, in order, when the
//! database returns and at every start, then removes the file. A replay
//! interrupted half-way is simply done again: every write is idempotent
//! (see `db/batch.rs`).

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crc::{Crc, CRC_32_ISCSI};
use serde::{Deserialize, Serialize};

use crate::db::scores::Write;

/// The record checksum (CRC-32C, as ext4 and iSCSI use).
const CRC: Crc<u32> = Crc::<u32>::new(&CRC_32_ISCSI);

/// Bytes before each payload: its length and its checksum.
const HEADER: usize = 8;

/// A record longer than this is taken for garbage (a torn length field):
/// a batch is at most a few MiB of JSON.
const MAX_RECORD: usize = 256 * 1024 * 1024;

/// Why the journal could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The file system refused (a full disk, a read-only mount…).
    #[error("journal {path}: {source}")]
    Io {
        /// The journal's path.
        path: PathBuf,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
    /// A batch could not be encoded (a bug: every write is plain data).
    #[error("journal: encoding a batch: {0}")]
    Encode(#[from] serde_json::Error),
    /// The thread doing the file's work panicked.
    #[error("journal: {0}")]
    Join(#[from] tokio::task::JoinError),
}

/// Where the journal is and how far it may grow.
#[derive(Debug, Clone)]
pub struct JournalOptions {
    /// The journal file.
    pub path: PathBuf,
    /// Beyond this size (bytes) the journal is full.
    pub max_bytes: u64,
    /// A journal whose oldest batch is older than this is full.
    pub max_age: Duration,
    /// Requests that may wait in the recorder's queue
    /// ([`crate::scores::recorder::QUEUE`]).
    pub queue: usize,
    /// The longest the recorder waits for the database — a new connection,
    /// a batch's commit — before it takes it for an outage and journals
    /// ([`crate::db::DEADLINE`]): the bound on how long a result waits
    /// before the journal takes it.
    pub deadline: Duration,
}

impl JournalOptions {
    /// A journal at `path` with the default bounds.
    pub fn at(path: PathBuf) -> JournalOptions {
        JournalOptions {
            path,
            max_bytes: JOURNAL_MAX_BYTES,
            max_age: JOURNAL_MAX_AGE,
            queue: crate::scores::recorder::QUEUE,
            deadline: crate::db::DEADLINE,
        }
    }
}

/// The journal's default size bound: some hours of a busy server's results.
pub const JOURNAL_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// The journal's default age bound: a database away for a day needs a
/// person, not more journal.
pub const JOURNAL_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// The matches `entries` show in play and not over (neither finished nor
/// abandoned by a later write), in the order they were last written.
pub(crate) fn unfinished_matches(entries: &[Entry]) -> Vec<uuid::Uuid> {
    let mut open = Vec::new();
    for write in entries.iter().flat_map(|e| &e.requests).flatten() {
        let (id, over) = match write {
            Write::CreatePlayer(_) | Write::FirstDevice(_) => continue,
            Write::StartMatch(m) => (m.id, false),
            Write::StartRound(r) => (r.match_id, false),
            Write::Attempt(a) => (a.match_id, false),
            Write::RoundResult(r) => (r.start.match_id, false),
            Write::FinishMatch(end) => (end.match_id, true),
            Write::AbandonMatch { match_id, .. } => (*match_id, true),
        };
        open.retain(|m| *m != id);
        if !over {
            open.push(id);
        }
    }
    open
}

/// One journaled batch: the writes of each request, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// When it was journaled (UTC ms): the journal's age is its oldest
    /// entry's.
    pub at_ms: i64,
    /// Each request's writes.
    pub requests: Vec<Vec<Write>>,
}

/// The journal file; opened for appending only once something is written
/// to it, so a server that never lost its database never creates it.
#[derive(Debug)]
pub(crate) struct Journal {
    path: PathBuf,
    /// Open for appending, once the first record was written.
    file: Option<Arc<File>>,
    /// Records in the file.
    records: u64,
    /// Bytes of whole records in the file: where the next one starts.
    bytes: u64,
    /// When the oldest record was written (UTC ms).
    oldest_ms: Option<i64>,
}

impl Journal {
    /// Opens the journal at `path` and reads what a previous run left in it
    /// (nothing if there is no file); a torn tail is cut off.
    pub async fn open(path: PathBuf) -> Result<(Journal, Vec<Entry>), JournalError> {
        let mut journal = Journal {
            path,
            file: None,
            records: 0,
            bytes: 0,
            oldest_ms: None,
        };
        let entries = journal.entries().await?;
        journal.records = entries.len() as u64;
        journal.oldest_ms = entries.first().map(|e| e.at_ms);
        if !entries.is_empty() {
            tracing::warn!(
                path = %journal.path.display(),
                batches = entries.len(),
                "found a journal of writes the database has not taken yet"
            );
        }
        Ok((journal, entries))
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Batches in it.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Its size in bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// When its oldest batch was written (UTC ms); `None` when empty.
    pub fn oldest_ms(&self) -> Option<i64> {
        self.oldest_ms
    }

    /// Appends `entry` and returns once it is on disk (fsync'd). On failure
    /// the file is cut back to its last whole record, so a later append
    /// does not land behind a torn one.
    pub async fn append(&mut self, entry: &Entry) -> Result<(), JournalError> {
        let payload = serde_json::to_vec(entry)?;
        let mut record = Vec::with_capacity(HEADER + payload.len());
        let length = u32::try_from(payload.len()).map_err(|_| self.io(ErrorKind::InvalidData))?;
        record.extend_from_slice(&length.to_le_bytes());
        record.extend_from_slice(&CRC.checksum(&payload).to_le_bytes());
        record.extend_from_slice(&payload);
        let file = match &self.file {
            Some(file) => file.clone(),
            None => {
                let path = self.path.clone();
                let file = tokio::task::spawn_blocking(move || {
                    OpenOptions::new().create(true).append(true).open(path)
                })
                .await?
                .map_err(|e| self.err(e))?;
                let file = Arc::new(file);
                self.file = Some(file.clone());
                file
            }
        };
        let good = self.bytes;
        let written = tokio::task::spawn_blocking(move || {
            let result = (&*file).write_all(&record).and_then(|()| file.sync_data());
            if result.is_err() {
                // Cut the torn record off; if even that fails, the checksum
                // still stops a reader at it.
                let _ = file.set_len(good);
            }
            result.map(|()| record.len() as u64)
        })
        .await?
        .map_err(|e| self.err(e))?;
        self.bytes += written;
        self.records += 1;
        self.oldest_ms.get_or_insert(entry.at_ms);
        Ok(())
    }

    /// Every whole record in the file, in order; a torn tail is cut off.
    pub async fn entries(&mut self) -> Result<Vec<Entry>, JournalError> {
        let path = self.path.clone();
        let (entries, good, total) = tokio::task::spawn_blocking(move || read(&path))
            .await?
            .map_err(|e| self.err(e))?;
        if good < total {
            tracing::warn!(
                path = %self.path.display(),
                ignored_bytes = total - good,
                "the journal ends in a torn record (a crash while writing it): ignored"
            );
            let path = self.path.clone();
            tokio::task::spawn_blocking(move || {
                let file = OpenOptions::new().write(true).open(path)?;
                file.set_len(good)?;
                file.sync_data()
            })
            .await?
            .map_err(|e| self.err(e))?;
        }
        self.bytes = good;
        Ok(entries)
    }

    /// Empties the journal once the database has everything in it: the
    /// file is removed (it is made again by the next outage).
    pub async fn clear(&mut self) -> Result<(), JournalError> {
        self.file = None;
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || match std::fs::remove_file(path) {
            Err(e) if e.kind() != ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        })
        .await?
        .map_err(|e| self.err(e))?;
        self.records = 0;
        self.bytes = 0;
        self.oldest_ms = None;
        Ok(())
    }

    fn err(&self, source: std::io::Error) -> JournalError {
        JournalError::Io {
            path: self.path.clone(),
            source,
        }
    }

    fn io(&self, kind: ErrorKind) -> JournalError {
        self.err(kind.into())
    }
}

/// Reads the records of the file at `path`: the entries, the length of the
/// whole records, and the file's length.
fn read(path: &Path) -> std::io::Result<(Vec<Entry>, u64, u64)> {
    let mut bytes = Vec::new();
    match File::open(path) {
        Ok(mut file) => {
            file.read_to_end(&mut bytes)?;
        }
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok((Vec::new(), 0, 0)),
        Err(e) => return Err(e),
    }
    let mut entries = Vec::new();
    let mut at = 0usize;
    while let Some((entry, next)) = record(&bytes, at) {
        entries.push(entry);
        at = next;
    }
    Ok((entries, at as u64, bytes.len() as u64))
}

/// The record starting at `at`, and where the next one starts; `None` at
/// the end or at a torn or corrupt record.
fn record(bytes: &[u8], at: usize) -> Option<(Entry, usize)> {
    let header = bytes.get(at..at.checked_add(HEADER)?)?;
    let (length, sum) = header.split_at(4);
    let length = usize::try_from(u32::from_le_bytes(length.try_into().ok()?)).ok()?;
    if length > MAX_RECORD {
        return None;
    }
    let start = at + HEADER;
    let payload = bytes.get(start..start.checked_add(length)?)?;
    if CRC.checksum(payload) != u32::from_le_bytes(sum.try_into().ok()?) {
        return None;
    }
    let entry = serde_json::from_slice(payload).ok()?;
    Some((entry, start + length))
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::*;
    use crate::db::scores::{AttemptRecord, Write};

    fn entry(n: u32) -> Entry {
        Entry {
            at_ms: i64::from(n),
            requests: vec![vec![Write::Attempt(AttemptRecord {
                match_id: Uuid::from_u128(7),
                round: n,
                player: krypto_core::protocol::PlayerId(1),
                formula: Some("1+2".into()),
                accepted: false,
                verdict: Some("wrong_value".into()),
                elapsed_ms: 10,
                at_ms: 5,
                seq: u64::from(n),
            })]],
        }
    }

    /// A new journal in a directory of its own, with entries 1 to `n`
    /// written.
    async fn written(n: u32) -> (tempfile::TempDir, std::path::PathBuf, Journal) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let (mut j, old) = Journal::open(path.clone()).await.unwrap();
        assert!(old.is_empty());
        for k in 1..=n {
            j.append(&entry(k)).await.unwrap();
        }
        (dir, path, j)
    }

    #[tokio::test]
    async fn entries_come_back_in_order_across_a_reopen_and_clear_removes_the_file() {
        let (_dir, path, mut j) = written(0).await;
        assert!(!path.exists(), "nothing written, no file");
        for n in 1..=3 {
            j.append(&entry(n)).await.unwrap();
        }
        assert_eq!((j.records(), j.oldest_ms()), (3, Some(1)));
        let (again, found) = Journal::open(path.clone()).await.unwrap();
        assert_eq!(found, vec![entry(1), entry(2), entry(3)]);
        assert_eq!(again.bytes(), j.bytes());
        j.clear().await.unwrap();
        assert!(!path.exists());
        assert_eq!(j.records(), 0);
    }

    #[tokio::test]
    async fn a_torn_tail_is_ignored_and_cut_off_so_later_records_are_read() {
        let (_dir, path, _) = written(2).await;
        // A crash while the third record was being written: half of it.
        let whole = std::fs::read(&path).unwrap();
        let mut torn = whole.clone();
        torn.extend_from_slice(&whole[..whole.len() / 4]);
        std::fs::write(&path, &torn).unwrap();

        let (mut j, found) = Journal::open(path.clone()).await.unwrap();
        assert_eq!(found, vec![entry(1), entry(2)]);
        assert_eq!(std::fs::read(&path).unwrap(), whole, "the torn tail is cut");
        j.append(&entry(3)).await.unwrap();
        let (_, found) = Journal::open(path).await.unwrap();
        assert_eq!(found, vec![entry(1), entry(2), entry(3)]);
    }

    #[test]
    fn matches_in_play_and_not_over_are_found_in_the_order_last_written() {
        let id = Uuid::from_u128;
        let at = |n: u128| Write::AbandonMatch {
            match_id: id(n),
            at_ms: 0,
        };
        // Attempts at match 7, then match 8 abandoned and 7 played on;
        // then 7 abandoned too.
        let mut entries = vec![entry(1)];
        entries.push(Entry {
            at_ms: 2,
            requests: vec![vec![at(8)], entry(3).requests.concat()],
        });
        assert_eq!(unfinished_matches(&entries), vec![id(7)]);
        entries.push(Entry {
            at_ms: 4,
            requests: vec![vec![at(7)]],
        });
        assert!(unfinished_matches(&entries).is_empty());
        assert!(unfinished_matches(&[]).is_empty());
    }

    #[tokio::test]
    async fn a_flipped_bit_stops_the_reader_at_that_record() {
        let (_dir, path, mut j) = written(1).await;
        let first = j.bytes() as usize;
        j.append(&entry(2)).await.unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[first + HEADER + 3] ^= 0x20;
        std::fs::write(&path, &bytes).unwrap();
        let (_, found) = Journal::open(path).await.unwrap();
        assert_eq!(found, vec![entry(1)]);
    }
}
