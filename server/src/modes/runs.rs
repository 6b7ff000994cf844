//! Solo runs on the server: `run_start` and `run_submit`, and the end of
//! a run decided by the server's clock.
//!
//! The run (krypto-core's [`Run`], its seed included) lives with the
//! connection and never leaves the server. A task per run waits on the
//! `WallClock` (`rooms/wall_clock.rs`) for the clock to reach zero and then
//! ends it: `run_over` is sent and the result stored as the player's best
//! of the day when it is. An answer that arrives after the end ends it
//! the same way, unjudged. A run whose player left still ends and counts.
//!
//! Runs in play are also kept by player on this node ([`RunsInPlay`]), so a
//! player whose connection dropped takes theirs up again with `run_resume`:
//! the same hand, and the clock as it is now (it never stopped, as in
//! lichess's Storm). A run's end is kept [`KEPT_AFTER_END_MS`] so a player
//! back after it hears `run_over`; then it is forgotten.

use std::collections::HashMap;
use std::sync::Arc;

use krypto_core::modes::daily::utc_date;
use krypto_core::modes::run::{Run, RunError, RunOutcome, RunSeed, RUN_MS};
use krypto_core::modes::RULES;
use krypto_core::protocol::{ErrorCode, PlayerId, ServerEnvelope, ServerMessage, Timed};
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use super::daily::day_text;
use super::{db_ms, Asker, Play, Solved};
use crate::db::modes::RunBest;
use crate::rooms::outbox::Outbox;
use crate::Shared;

/// How long a finished run stays to be resumed (its `run_over` told).
pub(crate) const KEPT_AFTER_END_MS: u64 = 5 * 60_000;

/// The runs of this node's players, by player: each player's latest, in
/// play or ended less than [`KEPT_AFTER_END_MS`] ago (so at most one per
/// player, and none for long after its end).
#[derive(Debug, Default)]
pub(crate) struct RunsInPlay {
    runs: std::sync::Mutex<HashMap<PlayerId, RunHandle>>,
}

impl RunsInPlay {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PlayerId, RunHandle>> {
        // A panic while holding it leaves a map that is still whole.
        self.runs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Keeps `run` as `player`'s, abandoning the one it replaces.
    fn start(&self, player: PlayerId, run: RunHandle) {
        if let Some(old) = self.lock().insert(player, run) {
            old.abandon.cancel();
        }
    }

    /// `player`'s run, if kept.
    fn get(&self, player: PlayerId) -> Option<RunHandle> {
        self.lock().get(&player).cloned()
    }

    /// Forgets `player`'s run if it is still `state`'s.
    fn forget(&self, player: PlayerId, state: &Arc<Mutex<RunState>>) {
        let mut runs = self.lock();
        if runs
            .get(&player)
            .is_some_and(|r| Arc::ptr_eq(&r.state, state))
        {
            runs.remove(&player);
        }
    }
}

/// A run in play and what ends it.
#[derive(Debug, Clone)]
pub(crate) struct RunHandle {
    state: Arc<Mutex<RunState>>,
    /// Cancelled when the player starts another run (this one is
    /// abandoned, unrecorded).
    abandon: CancellationToken,
}

/// A run and its bookkeeping, shared with its end task.
#[derive(Debug)]
struct RunState {
    run: Run,
    /// When the hand on the table was dealt (misses on it do not move it):
    /// a solved hand's own time, for a challenge made of it and the
    /// fair-play signals.
    dealt_ms: u64,
    /// `run_over` was sent and the result stored.
    finished: bool,
    /// Where the run's messages go: the connection that started it or
    /// the latest that resumed it.
    outbox: Outbox,
}

/// Whose run it is: what ending it needs.
#[derive(Debug, Clone)]
struct Owner {
    shared: Arc<Shared>,
    player: PlayerId,
    bot: bool,
}

impl Play {
    /// `run_start`: a new run on its first hand (abandoning one in play).
    pub(crate) async fn run_start(&mut self, asker: &Asker<'_>) {
        if let Some(old) = self.run.take() {
            old.abandon.cancel();
        }
        let now = asker.now_ms();
        let run = Run::new(RunSeed::generate(), now);
        asker.reply(run_message(&run, now));
        let state = Arc::new(Mutex::new(RunState {
            run,
            dealt_ms: now,
            finished: false,
            outbox: asker.outbox.clone(),
        }));
        let abandon = CancellationToken::new();
        let owner = Owner {
            shared: asker.shared.clone(),
            player: asker.player,
            bot: asker.bot,
        };
        tokio::spawn(end_when_due(owner, state.clone(), abandon.clone()));
        let handle = RunHandle { state, abandon };
        asker.shared.runs.start(asker.player, handle.clone());
        self.run = Some(handle);
    }

    /// `run_resume`: the player's run kept on this node, its messages sent
    /// here from now on; `run_over` if it ended while they were away.
    pub(crate) async fn run_resume(&mut self, asker: &Asker<'_>) {
        let Some(handle) = asker.shared.runs.get(asker.player) else {
            return asker.error(
                ErrorCode::WrongState,
                "no run in play here; start one (run_start)",
            );
        };
        let mut state = handle.state.lock().await;
        state.outbox = asker.outbox.clone();
        if state.finished {
            asker.reply(run_over(&state.run));
        } else {
            asker.reply(run_message(&state.run, asker.now_ms()));
        }
        drop(state);
        self.run = Some(handle);
    }

    /// `run_submit`: judges an answer to the run's hand `hand`.
    pub(crate) async fn run_submit(&mut self, asker: &Asker<'_>, hand: u32, formula: &str) {
        let Some(handle) = &self.run else {
            return asker.error(ErrorCode::WrongState, "start a run first (run_start)");
        };
        let owner = Owner {
            shared: asker.shared.clone(),
            player: asker.player,
            bot: asker.bot,
        };
        let mut state = handle.state.lock().await;
        if state.finished {
            return asker.error(ErrorCode::WrongState, "the run is over; start another");
        }
        let now = asker.now_ms();
        let dealt = state.run.deal().clone();
        let outcome = match state.run.submit(hand, formula, now) {
            Ok(outcome) => outcome,
            Err(RunError::Over) => return finish(&owner, &mut state, asker.id.clone()).await,
            Err(e @ RunError::WrongHand { .. }) => {
                return asker.error(ErrorCode::WrongRound, e.to_string())
            }
        };
        let mut played = None;
        let (verdict, bonus_ms) = match &outcome {
            RunOutcome::Solved {
                value, bonus_ms, ..
            } => {
                // Timed from the hand's deal, not from a miss on it: a
                // person fixing a typo is quick, and that is no signal.
                played = asker.played(&dealt, RULES, formula, state.dealt_ms, now);
                self.last_solved = Some(Solved {
                    deal: dealt,
                    rules: RULES,
                    result: Timed {
                        elapsed_ms: now.saturating_sub(state.dealt_ms),
                        misses: 0,
                    },
                });
                (
                    ServerMessage::Verdict {
                        round: hand,
                        accepted: true,
                        value: Some(value.to_string()),
                        error: None,
                        locked_out_ms: None,
                    },
                    *bonus_ms,
                )
            }
            RunOutcome::Missed(error) | RunOutcome::NotAnAttempt(error) => (
                ServerMessage::Verdict {
                    round: hand,
                    accepted: false,
                    value: None,
                    error: Some(error.clone()),
                    locked_out_ms: None,
                },
                0,
            ),
        };
        asker.reply(verdict);
        if matches!(outcome, RunOutcome::NotAnAttempt(_)) {
            return;
        }
        if matches!(outcome, RunOutcome::Solved { .. }) {
            state.dealt_ms = now;
        }
        if state.run.is_over(now) {
            finish(&owner, &mut state, asker.id.clone()).await;
            return asker.note(played).await;
        }
        let run = &state.run;
        asker.reply(ServerMessage::RunHand {
            hand: run.hand(),
            objective: run.deal().objective,
            cards: run.deal().hand.clone(),
            remaining_ms: run.remaining_ms(now),
            score: run.score(),
            combo: run.combo(),
            bonus_ms,
        });
        asker.note(played).await;
    }
}

/// Waits for the run's clock to reach zero (its end moves with bonuses and
/// penalties), then ends it.
async fn end_when_due(owner: Owner, state: Arc<Mutex<RunState>>, abandon: CancellationToken) {
    let clock = owner.shared.config.wall_clock.clone();
    loop {
        let ends_at = state.lock().await.run.ends_at_ms();
        tokio::select! {
            () = abandon.cancelled() => return,
            () = owner.shared.disconnect.cancelled() => return,
            () = clock.sleep_until(ends_at) => {}
        }
        let mut locked = state.lock().await;
        if !locked.finished && !locked.run.is_over(clock.now_ms()) {
            continue;
        }
        finish(&owner, &mut locked, None).await;
        drop(locked);
        // Kept a while for a player coming back to hear its end.
        tokio::select! {
            () = abandon.cancelled() => {}
            () = owner.shared.disconnect.cancelled() => {}
            () = clock.sleep_until(ends_at.saturating_add(KEPT_AFTER_END_MS)) => {}
        }
        owner.shared.runs.forget(owner.player, &state);
        return;
    }
}

/// The `run` message of `run` as it stands at `now`.
fn run_message(run: &Run, now: u64) -> ServerMessage {
    ServerMessage::Run {
        hand: run.hand(),
        objective: run.deal().objective,
        cards: run.deal().hand.clone(),
        duration_ms: RUN_MS,
        remaining_ms: run.remaining_ms(now),
        score: run.score(),
        combo: run.combo(),
    }
}

/// The `run_over` of an ended run.
fn run_over(run: &Run) -> ServerMessage {
    let result = run.result();
    ServerMessage::RunOver {
        score: result.score,
        misses: result.misses,
        best_combo: result.best_combo,
        duration_ms: result.duration_ms,
    }
}

/// Ends the run: stores the result (a bot's is kept off the board) and
/// sends `run_over`.
async fn finish(owner: &Owner, state: &mut RunState, id: Option<String>) {
    if state.finished {
        return;
    }
    state.finished = true;
    let result = state.run.result();
    let ended = state.run.ends_at_ms();
    if !owner.bot {
        let best = RunBest {
            score: i64::from(result.score),
            misses: i64::from(result.misses),
            best_combo: i64::from(result.best_combo),
            duration_ms: db_ms(result.duration_ms),
            finished_ms: db_ms(ended),
        };
        let day = day_text(utc_date(ended));
        if let Err(e) = owner
            .shared
            .mode_writes
            .run_finished(owner.player, &day, best)
            .await
        {
            tracing::warn!(error = %e, "a finished run could not be stored");
        }
    }
    state
        .outbox
        .send(&ServerEnvelope::reply(id, run_over(&state.run)));
}
