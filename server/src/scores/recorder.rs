//! The recorder: the one task that writes scores, with group commit, and
//! that keeps every write through a database outage.
//!
//! Rooms send their writes down a channel. The recorder takes whatever is
//! queued, applies it all in one transaction (each request in its own
//! savepoint, so one bad request cannot undo the others) and commits once;
//! then it answers every request that asked for an answer. While a commit
//! is on its way to the disk, the next batch queues up behind it. A room
//! that must not announce a result before it is durable waits for its own
//! answer, and never for another room's: it simply rides in the same
//! commit.
//!
//! Match starts, dealt hands and attempts are sent without waiting (they
//! announce nothing); they still commit in order with the rest of their
//! room's writes, because one channel and one connection keep the order.
//! New players go through the same group commit: a crowd of `hello`s
//! arriving together costs one transaction per batch, not one each.
//!
//! When the database cannot take a batch (a lost connection, a restarting
//! server, a foreign lock on a SQLite file, a full disk, or no answer
//! within the deadline — a link that silently drops packets never fails on
//! its own), the batch goes to the [`Journal`] instead — fsync'd, so it is as durable as a commit — and
//! is answered from there; so does every batch after it, to keep the
//! order, until the database is back. The recorder then opens a new
//! connection (with [`Backoff`], in a task of its own, so a result never
//! waits for an attempt to reach a database that does not answer) and
//! replays the journal into it, in order; every write is idempotent (match ids, round numbers and attempt
//! numbers are the keys), so a batch applied twice — a commit whose answer
//! was lost, a replay cut short — changes nothing. A write is never
//! dropped because the database was unavailable: if neither the database
//! nor the journal takes a batch, its requests wait, and the recorder keeps
//! trying both.
//!
//! New players are the exception: their id comes from the database, so
//! during an outage they are refused ([`RecordError::Unavailable`]), never
//! journaled.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::db::backoff::Backoff;
use crate::db::scores::{Applied, FirstDevice, NewPlayer, Write};
use crate::db::{within, Created, Db, DbError, Writer};
use crate::ops::durability::Durability;
use crate::scores::journal::{unfinished_matches, Entry, Journal, JournalError};
pub use crate::scores::journal::{JournalOptions, JOURNAL_MAX_AGE, JOURNAL_MAX_BYTES};
use crate::scores::periods::now_ms;

/// Requests waiting for the recorder by default; a room sending to a full
/// queue waits (back-pressure when the disk cannot keep up). Rooms hold
/// their dealt hands and attempts until the round's result, so a crowd
/// sends about one request per round, not one per attempt.
pub const QUEUE: usize = 8192;

/// Most requests in one transaction, so one commit cannot grow without end.
const MAX_BATCH: usize = 2048;

/// Why something was not recorded.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RecordError {
    /// The database refused the write (shared by every request of a batch
    /// the database refused as a whole).
    #[error("recording failed: {0}")]
    Failed(#[source] Arc<DbError>),
    /// The database is unavailable and the request cannot wait for it (a
    /// new player, whose id the database gives).
    #[error("the database is unavailable")]
    Unavailable,
    /// The recorder has shut down.
    #[error("the recorder has stopped")]
    Stopped,
    /// The recorder answered something else than the request asked for.
    #[error("the recorder answered {0:?} to a new player")]
    Unexpected(Vec<Applied>),
}

/// Why the recorder could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// Its connection could not be opened.
    #[error(transparent)]
    Db(#[from] DbError),
    /// Its journal could not be read.
    #[error(transparent)]
    Journal(#[from] JournalError),
}

type Reply = oneshot::Sender<Result<Vec<Applied>, RecordError>>;

#[derive(Debug)]
enum Request {
    /// Writes to apply together, answered after the commit if `reply` is set.
    Write {
        writes: Vec<Write>,
        reply: Option<Reply>,
    },
    /// Finish what is queued, then stop.
    Close(oneshot::Sender<()>),
}

/// The handle rooms record through; cheap to clone.
#[derive(Debug, Clone)]
pub struct Recorder {
    tx: mpsc::Sender<Request>,
    /// Batches committed so far that changed a leaderboard: what the
    /// boards' copies compare themselves to.
    commits: Arc<AtomicU64>,
    /// What the recorder reports (queue, journal, commits, outages).
    state: Arc<Durability>,
}

impl Recorder {
    /// Replays what a previous run left in the journal (if the database
    /// takes it now; otherwise the recorder starts journaling), opens the
    /// recorder's own connection and starts its task.
    pub async fn start(
        db: &Db,
        journal: JournalOptions,
    ) -> Result<(Recorder, JoinHandle<()>), StartError> {
        Recorder::start_reporting(db, journal, Durability::default()).await
    }

    /// [`Recorder::start`], reporting into `state` (whose commit-time
    /// histogram is the server's metrics').
    pub async fn start_reporting(
        db: &Db,
        journal: JournalOptions,
        state: Durability,
    ) -> Result<(Recorder, JoinHandle<()>), StartError> {
        let (opened, left) = Journal::open(journal.path.clone()).await?;
        let (tx, rx) = mpsc::channel(journal.queue.max(1));
        let commits = Arc::new(AtomicU64::new(0));
        let state = Arc::new(state);
        let mut task = Task {
            db: db.clone(),
            writer: Some(db.writer().await?),
            journal: opened,
            options: journal,
            state: state.clone(),
            commits: commits.clone(),
            backoff: Backoff::default(),
            down: false,
        };
        task.gauge_journal();
        if !left.is_empty() && !task.replay().await {
            task.down = true;
        }
        task.close_cut_off(&left).await;
        let handle = tokio::spawn(task.run(rx));
        Ok((Recorder { tx, commits, state }, handle))
    }

    /// How many committed batches changed a leaderboard (a round's result
    /// or a match's end): a board read before the count last moved may be
    /// out of date.
    pub fn commits(&self) -> u64 {
        self.commits.load(Ordering::Acquire)
    }

    /// Counts a change to the boards made outside the recorder (a fair-play
    /// flag): every board's copy is read again before it is served.
    pub(crate) fn boards_changed(&self) {
        self.commits.fetch_add(1, Ordering::AcqRel);
    }

    /// The recorder's counters and gauges.
    pub fn state(&self) -> &Arc<Durability> {
        &self.state
    }

    /// Records `writes` and returns once they are durable — committed, or
    /// journaled while the database is unavailable — with what each
    /// produced (a match journaled at its end has no rating changes yet).
    pub async fn commit(&self, writes: Vec<Write>) -> Result<Vec<Applied>, RecordError> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(Request::Write {
                writes,
                reply: Some(reply),
            })
            .await
            .map_err(|_| RecordError::Stopped)?;
        answer.await.map_err(|_| RecordError::Stopped)?
    }

    /// Creates a player, riding in the next group commit; returns once the
    /// player is committed ([`RecordError::Unavailable`] while the
    /// database is away).
    pub async fn create_player(&self, player: NewPlayer) -> Result<Created, RecordError> {
        let mut applied = self.commit(vec![Write::CreatePlayer(player)]).await?;
        match applied.pop() {
            Some(Applied::Player(created)) if applied.is_empty() => Ok(created),
            other => {
                applied.extend(other);
                Err(RecordError::Unexpected(applied))
            }
        }
    }

    /// Creates a player with the device that asked (its `player_tokens`
    /// row) in the same group commit: nothing of a new player's hello is
    /// written elsewhere.
    pub async fn create_player_on(
        &self,
        player: NewPlayer,
        device: FirstDevice,
    ) -> Result<Created, RecordError> {
        let writes = vec![Write::CreatePlayer(player), Write::FirstDevice(device)];
        let applied = self.commit(writes).await?;
        match applied.as_slice() {
            [Applied::Player(created), Applied::Done] => Ok(created.clone()),
            _ => Err(RecordError::Unexpected(applied)),
        }
    }

    /// Queues `writes` without waiting for their commit (failures are
    /// logged by the recorder).
    pub async fn submit(&self, writes: Vec<Write>) -> Result<(), RecordError> {
        self.tx
            .send(Request::Write {
                writes,
                reply: None,
            })
            .await
            .map_err(|_| RecordError::Stopped)
    }

    /// Queues `writes` without waiting for their commit or for room in the
    /// queue; a full queue gives them back (`Err(Some(writes))`), a
    /// stopped recorder does not (`Err(None)`).
    pub fn try_submit(&self, writes: Vec<Write>) -> Result<(), Option<Vec<Write>>> {
        let request = Request::Write {
            writes,
            reply: None,
        };
        self.tx.try_send(request).map_err(|e| match e {
            mpsc::error::TrySendError::Full(Request::Write { writes, .. }) => Some(writes),
            _ => None,
        })
    }

    /// Commits everything queued so far and stops the recorder (what the
    /// database cannot take stays in the journal for the next start).
    pub async fn close(&self) {
        let (done, wait) = oneshot::channel();
        if self.tx.send(Request::Close(done)).await.is_ok() {
            let _ = wait.await;
        }
    }
}

/// The requests of one batch and their answers.
type Batch = Vec<(Vec<Write>, Option<Reply>)>;

/// What each request of a batch produced, or why the database refused it.
type Answers = Vec<Result<Vec<Applied>, RecordError>>;

/// The recorder's task.
struct Task {
    db: Db,
    /// The recorder's own connection; `None` after it was lost.
    writer: Option<Writer>,
    journal: Journal,
    options: JournalOptions,
    state: Arc<Durability>,
    commits: Arc<AtomicU64>,
    /// Waits between attempts to reach the database again.
    backoff: Backoff,
    /// The database failed: batches go to the journal until a replay
    /// succeeds.
    down: bool,
}

impl Task {
    async fn run(mut self, mut rx: mpsc::Receiver<Request>) {
        let mut closers = Vec::new();
        let mut retry = Instant::now() + self.backoff.next_wait();
        // A new connection being opened while the recorder journals: off
        // the recorder's path, so a result never waits for an attempt to
        // reach a database that does not answer.
        let mut probe: Option<JoinHandle<Result<Writer, DbError>>> = None;
        loop {
            let first = if self.down {
                tokio::select! {
                    request = rx.recv() => request,
                    () = tokio::time::sleep_until(retry), if probe.is_none() => {
                        if self.writer.is_some() {
                            if !self.replay().await {
                                retry = Instant::now() + self.backoff.next_wait();
                            }
                        } else {
                            let db = self.db.clone();
                            let deadline = self.options.deadline;
                            probe = Some(tokio::spawn(async move {
                                within(deadline, db.writer()).await
                            }));
                        }
                        continue;
                    }
                    opened = opening(&mut probe), if probe.is_some() => {
                        probe = None;
                        match opened {
                            Ok(writer) => {
                                self.state.reconnects.fetch_add(1, Ordering::Relaxed);
                                self.writer = Some(writer);
                                if !self.replay().await {
                                    retry = Instant::now() + self.backoff.next_wait();
                                }
                            }
                            Err(e) => {
                                self.lost(&e);
                                retry = Instant::now() + self.backoff.next_wait();
                            }
                        }
                        continue;
                    }
                }
            } else {
                rx.recv().await
            };
            let Some(first) = first else { break };
            let mut batch = Vec::new();
            let mut next = Some(first);
            while let Some(request) = next {
                match request {
                    Request::Write { writes, reply } => batch.push((writes, reply)),
                    Request::Close(done) => {
                        // Whatever is already queued still gets written;
                        // then `recv` ends the loop.
                        rx.close();
                        closers.push(done);
                    }
                }
                next = if batch.len() < MAX_BATCH {
                    rx.try_recv().ok()
                } else {
                    None
                };
            }
            self.state
                .queue_depth
                .store(rx.len() as u64, Ordering::Relaxed);
            if !batch.is_empty() {
                let was_down = self.down;
                self.record(batch).await;
                if self.down && !was_down {
                    self.backoff.reset();
                    retry = Instant::now() + self.backoff.next_wait();
                }
            }
        }
        if let Some(probe) = probe.take() {
            probe.abort();
        }
        if self.down && !self.replay().await {
            tracing::warn!(
                path = %self.journal.path().display(),
                batches = self.journal.records(),
                "stopping with writes the database has not taken: they are replayed at the next start"
            );
        }
        if let Some(writer) = self.writer.take() {
            if let Err(e) = writer.close().await {
                tracing::warn!(error = %e, "closing the recorder's connection");
            }
        }
        for done in closers {
            let _ = done.send(());
        }
    }

    /// Makes a batch durable — committed, or journaled — and answers its
    /// requests; waits (retrying both) while neither is possible.
    async fn record(&mut self, mut batch: Batch) {
        if !self.down {
            let mut tried = self.commit(&batch).await;
            if let Err(e) = &tried {
                // A connection kept while the database restarted fails on
                // its first use; a new one may simply work.
                if e.is_connection_lost() {
                    tried = self.commit(&batch).await;
                }
            }
            match tried {
                Ok(answers) => {
                    answer(batch, answers);
                    return;
                }
                Err(e) => self.lost(&e),
            }
        }
        // New players cannot wait for the database: refused now.
        batch.retain_mut(|(writes, reply)| {
            if !writes.iter().any(|w| matches!(w, Write::CreatePlayer(_))) {
                return true;
            }
            if let Some(reply) = reply.take() {
                let _ = reply.send(Err(RecordError::Unavailable));
            }
            false
        });
        if batch.is_empty() {
            return;
        }
        let entry = Entry {
            at_ms: now_ms(),
            requests: batch.iter().map(|(writes, _)| writes.clone()).collect(),
        };
        let mut backoff = Backoff::default();
        loop {
            match self.journal.append(&entry).await {
                Ok(()) => {
                    self.state.journal_up();
                    self.gauge_journal();
                    let answers = batch.iter().map(|(writes, _)| Ok(journaled(writes)));
                    let answers = answers.collect();
                    answer(batch, answers);
                    return;
                }
                Err(e) => {
                    tracing::error!(
                        error = %e,
                        requests = batch.len(),
                        "neither the database nor the journal takes writes: waiting, nothing is announced meanwhile"
                    );
                    self.state.journal_down(&e);
                }
            }
            tokio::time::sleep(backoff.next_wait()).await;
            // The database may be back first (the journal is still empty,
            // or was replayed): the batch then goes straight to it.
            if self.replay().await {
                match self.commit(&batch).await {
                    Ok(answers) => {
                        self.state.journal_up();
                        answer(batch, answers);
                        return;
                    }
                    Err(e) => self.lost(&e),
                }
            }
        }
    }

    /// Records as abandoned the matches the journal left by the last run
    /// shows in play and not over: that run ended without saving its rooms
    /// (a kill -9, a crash, a stop while the database was away — a room is
    /// saved only through the database, and the journal is replayed before
    /// that), so they can never finish. After the journal, in order: a
    /// match it finished stays finished.
    async fn close_cut_off(&mut self, left: &[Entry]) {
        let open = unfinished_matches(left);
        if open.is_empty() {
            return;
        }
        tracing::warn!(
            matches = open.len(),
            "matches cut off by the end of the last run recorded as abandoned"
        );
        let at_ms = now_ms();
        let writes = open
            .into_iter()
            .map(|match_id| Write::AbandonMatch { match_id, at_ms })
            .collect();
        self.record(vec![(writes, None)]).await;
    }

    /// Notes that the database could not take a batch.
    fn lost(&mut self, e: &DbError) {
        if !self.down {
            tracing::error!(error = %e, "the database is unavailable: journaling writes until it is back");
        }
        self.down = true;
        self.writer = None;
        self.state.database_down(e);
    }

    /// Applies the requests of `batch` in one transaction. `Err` only when
    /// the database is unavailable (the batch is then kept); a write the
    /// database refuses is answered with its error.
    async fn commit(&mut self, batch: &Batch) -> Result<Answers, DbError> {
        let requests: Vec<&[Write]> = batch.iter().map(|(writes, _)| writes.as_slice()).collect();
        let answers = self.apply(&requests).await?;
        if requests
            .iter()
            .any(|writes| writes.iter().any(Write::changes_boards))
        {
            self.commits.fetch_add(1, Ordering::AcqRel);
        }
        Ok(answers)
    }

    /// See [`Task::commit`].
    async fn apply(&mut self, requests: &[&[Write]]) -> Result<Answers, DbError> {
        let started = std::time::Instant::now();
        let deadline = self.options.deadline;
        let writer = self.connect().await?;
        // A link that drops packets silently would hold the commit for
        // minutes: past the deadline the batch is taken for unwritten and
        // journaled (it may have landed; replaying it changes nothing).
        let applied = within(deadline, writer.apply_batch(requests)).await;
        match applied {
            Ok(results) => {
                let mut answers = Vec::with_capacity(results.len());
                for result in results {
                    match result {
                        // The database went away in the middle of the
                        // batch: the whole batch is kept (what did commit
                        // is applied again harmlessly).
                        Err(e) if e.is_unavailable() => return Err(self.failed(e)),
                        result => {
                            answers.push(result.map_err(|e| RecordError::Failed(Arc::new(e))))
                        }
                    }
                }
                self.state.committed(started.elapsed());
                tracing::debug!(
                    requests = requests.len(),
                    commit_us = started.elapsed().as_micros(),
                    "group commit"
                );
                Ok(answers)
            }
            Err(e) if e.is_unavailable() => Err(self.failed(e)),
            Err(e) => {
                tracing::error!(error = %e, requests = requests.len(), "a group commit failed");
                let failed = RecordError::Failed(Arc::new(e));
                Ok(requests.iter().map(|_| Err(failed.clone())).collect())
            }
        }
    }

    /// The recorder's connection, opened again if it was lost.
    async fn connect(&mut self) -> Result<&mut Writer, DbError> {
        if self.writer.is_none() {
            let writer = within(self.options.deadline, self.db.writer()).await?;
            self.state.reconnects.fetch_add(1, Ordering::Relaxed);
            self.writer = Some(writer);
        }
        self.writer
            .as_mut()
            .ok_or(DbError::Invariant("the recorder's connection vanished"))
    }

    /// Counts a commit the database could not take.
    fn failed(&mut self, e: DbError) -> DbError {
        self.state.failed_commits.fetch_add(1, Ordering::Relaxed);
        self.writer = None;
        e
    }

    /// Replays the journal into the database, in order, and empties it;
    /// true once the database has taken everything (the recorder is then
    /// back to committing directly).
    async fn replay(&mut self) -> bool {
        if let Err(e) = self.connect().await {
            self.lost(&e);
            return false;
        }
        let entries = match self.journal.entries().await {
            Ok(entries) => entries,
            Err(e) => {
                tracing::error!(error = %e, "reading the journal failed");
                self.state.journal_down(&e);
                return false;
            }
        };
        let replayed = entries.len();
        let mut requests: Vec<Vec<Write>> = Vec::new();
        let mut entries = entries.into_iter().peekable();
        while entries.peek().is_some() {
            let mut batches = 0;
            while requests.len() < MAX_BATCH {
                match entries.next() {
                    Some(entry) => {
                        requests.extend(entry.requests);
                        batches += 1;
                    }
                    None => break,
                }
            }
            let chunk: Vec<&[Write]> = requests.iter().map(Vec::as_slice).collect();
            match self.apply(&chunk).await {
                Ok(answers) => {
                    for (writes, answer) in requests.iter().zip(answers) {
                        if let Err(e) = answer {
                            tracing::error!(error = %e, ?writes, "the database refused a journaled write");
                        }
                    }
                    self.state
                        .replayed_batches
                        .fetch_add(batches, Ordering::Relaxed);
                    if requests.iter().flatten().any(Write::changes_boards) {
                        self.commits.fetch_add(1, Ordering::AcqRel);
                    }
                    requests.clear();
                }
                Err(e) => {
                    self.lost(&e);
                    return false;
                }
            }
        }
        if let Err(e) = self.journal.clear().await {
            // Everything is in the database; a journal left behind is
            // replayed again, harmlessly, next time.
            tracing::error!(error = %e, "emptying the journal failed");
            self.state.journal_down(&e);
            return false;
        }
        self.gauge_journal();
        self.state.journal_full.store(false, Ordering::Relaxed);
        if self.down || replayed > 0 {
            tracing::info!(batches = replayed, "the database is back: journal replayed");
        }
        self.down = false;
        self.backoff.reset();
        self.state.database_up();
        true
    }

    /// Publishes the journal's size, and whether it reached its bound.
    fn gauge_journal(&self) {
        self.state
            .journal_batches
            .store(self.journal.records(), Ordering::Relaxed);
        self.state
            .journal_bytes
            .store(self.journal.bytes(), Ordering::Relaxed);
        let age = self
            .journal
            .oldest_ms()
            .map(|oldest| Duration::from_millis(u64::try_from(now_ms() - oldest).unwrap_or(0)));
        let full = self.journal.records() > 0
            && (self.journal.bytes() >= self.options.max_bytes
                || age.is_some_and(|age| age >= self.options.max_age));
        if full && !self.state.journal_full.swap(true, Ordering::Relaxed) {
            tracing::error!(
                bytes = self.journal.bytes(),
                path = %self.journal.path().display(),
                "the journal is full: no new matches until the database is back"
            );
        }
    }
}

/// The connection `probe` is opening, once it is open (or failed); never
/// without a probe.
async fn opening(
    probe: &mut Option<JoinHandle<Result<Writer, DbError>>>,
) -> Result<Writer, DbError> {
    match probe {
        Some(probe) => probe.await.unwrap_or(Err(DbError::Invariant(
            "the recorder's connection attempt panicked",
        ))),
        None => std::future::pending().await,
    }
}

/// What a journaled request answers: its writes are durable, and a match's
/// end has no rating changes to show yet (they are computed when the
/// database takes it).
fn journaled(writes: &[Write]) -> Vec<Applied> {
    writes
        .iter()
        .map(|w| match w {
            Write::FinishMatch(_) => Applied::Ratings(Vec::new()),
            _ => Applied::Done,
        })
        .collect()
}

/// Answers every request of `batch` (in order: whoever hears of a result
/// can see that it was durable).
fn answer(batch: Batch, answers: Answers) {
    for ((writes, reply), result) in batch.into_iter().zip(answers) {
        match reply {
            Some(reply) => {
                let _ = reply.send(result);
            }
            None => {
                if let Err(e) = result {
                    tracing::warn!(error = %e, ?writes, "a write was not recorded");
                }
            }
        }
    }
}
