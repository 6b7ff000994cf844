//! Leaderboards served from memory: each board (a metric, a period and the
//! rating board's minimums) is read whole from the database — one index
//! range, names joined — and pages are cut from that copy.
//!
//! Why: a page read from the database costs up to three `count(*)`s over
//! the board's index range (the first row's rank, the board's size and,
//! for `around`, the player's place). SQLite answers those in a
//! millisecond or two; PostgreSQL walks a leaderboard index that churns
//! with every match (an update moves a player's entry), and paid 5–20 ms
//! per page on a 5,000-player board. One read of the whole board costs
//! about what one such count does, and then serves every page until the
//! board changes.
//!
//! Freshness: a copy is current while no result has been committed here
//! since it was read (the recorder counts the commits that change a board)
//! and it is younger than [`MAX_AGE`]. After a result, the next reader
//! reads the board again before answering — a player who has just been told
//! a result finds it on the board — and readers arriving meanwhile wait for
//! that one read instead of making their own. A copy older than [`MAX_AGE`]
//! with nothing committed here (other nodes' results, the clock) is still
//! served while one reader reads it again in the background, up to
//! [`STALE_AGE`]; an older copy, or none, is read before answering.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use krypto_core::protocol::LeaderboardRow;
use tokio::time::Instant;

use crate::db::boards::{BoardEntry, BoardKey};
use crate::db::Db;
use crate::scores::leaderboard::{
    competition_ranks, player_named, Board, BoardError, BoardQuery, Ranking, MAX_LIMIT,
};

/// How long a copy serves as current when nothing was recorded here.
pub const MAX_AGE: Duration = Duration::from_secs(2);

/// How long a copy may be served at all while it is read again behind it.
pub const STALE_AGE: Duration = Duration::from_secs(10);

/// A whole board as read at one moment.
#[derive(Debug)]
struct Snapshot {
    /// Best first, ties by player id.
    rows: Vec<BoardEntry>,
    /// Each row's rank (standard competition ranking).
    ranks: Vec<u32>,
    /// Where each player is in `rows`.
    index: HashMap<i64, usize>,
    /// The recorder's commit count before the read.
    version: u64,
    /// When it was read.
    read_at: Instant,
}

impl Snapshot {
    fn new(rows: Vec<BoardEntry>, version: u64, read_at: Instant) -> Snapshot {
        let ranks = competition_ranks(rows.iter().map(|r| r.value), 0, 1);
        let index = rows
            .iter()
            .enumerate()
            .map(|(i, r)| (r.player_id, i))
            .collect();
        Snapshot {
            rows,
            ranks,
            index,
            version,
            read_at,
        }
    }

    /// `limit` rows from `offset`.
    fn page(&self, offset: usize, limit: usize) -> Vec<LeaderboardRow> {
        let end = offset.saturating_add(limit).min(self.rows.len());
        (offset.min(end)..end)
            .map(|i| self.rows[i].ranked(self.ranks[i]))
            .collect()
    }
}

/// One board's slot: its copy, and whether a background read is running.
#[derive(Debug, Default)]
struct Slot {
    /// The copy, once read.
    snapshot: tokio::sync::Mutex<Option<Arc<Snapshot>>>,
    /// A background read is on its way.
    refreshing: std::sync::atomic::AtomicBool,
}

/// Every board's copy; shared by the server's connections.
#[derive(Debug, Default)]
pub struct BoardCache {
    slots: Mutex<HashMap<BoardKey, Arc<Slot>>>,
}

impl BoardCache {
    /// An empty cache.
    pub fn new() -> Arc<BoardCache> {
        Arc::new(BoardCache::default())
    }

    /// One page of a leaderboard as of `now_ms`, the same as
    /// [`crate::scores::leaderboard::read_board`] answers from the database, given the
    /// recorder's commit count `version`.
    pub async fn board(
        self: &Arc<Self>,
        db: &Db,
        query: &BoardQuery,
        ranking: Ranking,
        now_ms: i64,
        version: u64,
    ) -> Result<Board, BoardError> {
        let key = BoardKey::of(query, ranking, now_ms);
        let limit = query.limit.clamp(1, MAX_LIMIT) as usize;
        let snapshot = self.snapshot(db, key, version).await?;
        let mut page = Board::empty(query, key);
        page.total = snapshot.rows.len() as u64;
        let offset = match &query.around {
            None => 0,
            Some(name) => {
                let player = player_named(db, name).await?;
                let Some(&before) = snapshot.index.get(&player.id) else {
                    return Ok(page);
                };
                before
                    .saturating_sub((limit - 1) / 2)
                    .min(snapshot.rows.len().saturating_sub(limit))
            }
        };
        page.rows = snapshot.page(offset, limit);
        Ok(page)
    }

    /// The board's copy: current, or still young enough to serve while it
    /// is read again in the background, or read now.
    async fn snapshot(
        self: &Arc<Self>,
        db: &Db,
        key: BoardKey,
        version: u64,
    ) -> Result<Arc<Snapshot>, BoardError> {
        let slot = self.slot(&key);
        let mut held = slot.snapshot.lock().await;
        if let Some(snapshot) = held.as_ref().filter(|s| s.version == version) {
            let age = snapshot.read_at.elapsed();
            if age < MAX_AGE {
                return Ok(snapshot.clone());
            }
            if age < STALE_AGE {
                self.refresh_later(&slot, db, key, version);
                return Ok(snapshot.clone());
            }
        }
        let fresh = Arc::new(read(db, &key, version).await?);
        *held = Some(fresh.clone());
        Ok(fresh)
    }

    /// The slot of `key`, made on first use; slots of past periods go.
    fn slot(&self, key: &BoardKey) -> Arc<Slot> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = slots.get(key) {
            return slot.clone();
        }
        slots.retain(|k, _| !(k.metric == key.metric && k.period == key.period));
        let slot = Arc::new(Slot::default());
        slots.insert(*key, slot.clone());
        slot
    }

    /// Reads the board again in a task of its own, unless one already is.
    fn refresh_later(self: &Arc<Self>, slot: &Arc<Slot>, db: &Db, key: BoardKey, version: u64) {
        use std::sync::atomic::Ordering;
        if slot.refreshing.swap(true, Ordering::AcqRel) {
            return;
        }
        let (slot, db) = (slot.clone(), db.clone());
        tokio::spawn(async move {
            match read(&db, &key, version).await {
                Ok(fresh) => {
                    let mut held = slot.snapshot.lock().await;
                    // A reader may have read it meanwhile, more recently.
                    if held.as_ref().is_none_or(|s| s.read_at <= fresh.read_at) {
                        *held = Some(Arc::new(fresh));
                    }
                }
                Err(e) => tracing::warn!(error = %e, "reading a leaderboard again"),
            }
            slot.refreshing.store(false, Ordering::Release);
        });
    }
}

/// Reads a whole board.
async fn read(db: &Db, key: &BoardKey, version: u64) -> Result<Snapshot, BoardError> {
    let read_at = Instant::now();
    let rows = db.board_all(*key).await?;
    Ok(Snapshot::new(rows, version, read_at))
}
