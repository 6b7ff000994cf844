//! The signals' task: each rated match's right answers become
//! [`Answer`]s, kept in a bounded window per player (the latest
//! [`window`] of them, enough for `assess`); after each new batch `assess`
//! runs over the window and what a reviewer cleared, and a flag is stored
//! with its evidence and time, the boards' copies are refreshed and the
//! metrics counted.

use std::collections::VecDeque;
use std::sync::Mutex;

use krypto_core::cards::Deal;
use krypto_core::fair_play::{assess, Answer, FairPlaySettings};
use krypto_core::protocol::{PlayerId, RoomSettings};
use krypto_core::rules::Rules;
use krypto_core::solver;
use tokio::sync::mpsc;

use super::{Played, Rated};
use crate::db::fair_play::{RatedWin, Standing};
use crate::db::{Db, DbError};
use crate::ops::metrics::FairPlayAnswers;
use crate::scores::periods::now_ms;
use crate::scores::recorder::Recorder;

/// Hands whose solution counts are kept: the day's daily (every player's
/// same hand) and a few challenges stay counted through a rush.
const COUNTED_HANDS: usize = 16;

/// The latest hands' distinct-solution counts, so a rush on one daily
/// counts its hand once rather than once an answer.
#[derive(Debug, Default)]
pub(crate) struct SolutionCounts {
    latest: Mutex<VecDeque<(Deal, Rules, u64)>>,
}

impl SolutionCounts {
    fn get(&self, deal: &Deal, rules: Rules) -> Option<u64> {
        let latest = self.latest.lock().unwrap_or_else(|p| p.into_inner());
        latest
            .iter()
            .find(|(d, r, _)| d == deal && *r == rules)
            .map(|(_, _, n)| *n)
    }

    fn put(&self, deal: Deal, rules: Rules, count: u64) {
        let mut latest = self.latest.lock().unwrap_or_else(|p| p.into_inner());
        if latest.len() >= COUNTED_HANDS {
            latest.pop_front();
        }
        latest.push_back((deal, rules, count));
    }
}

/// How often the flag counters are read again from the database (the review
/// command and other nodes decide too).
const COUNT_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// How many of a player's latest answers are kept: every window `assess`
/// reads, the hard hands' counted in answers of any band (a hard hand is
/// at least one in three, so three times its window).
pub fn window(settings: &FairPlaySettings) -> u32 {
    settings
        .floor
        .window
        .max(settings.regularity.window)
        .max(settings.hard_hands.window.saturating_mul(3))
}

/// The task's state.
#[derive(Debug)]
pub(crate) struct Signals {
    pub(crate) db: Db,
    pub(crate) settings: FairPlaySettings,
    pub(crate) recorder: Recorder,
    pub(crate) counters: [metrics::Counter; 3],
    /// What became of the modes' answers.
    pub(crate) answers: FairPlayAnswers,
    /// The latest hands counted.
    pub(crate) solutions: SolutionCounts,
}

impl Signals {
    pub(crate) async fn run(
        self,
        mut rated: mpsc::Receiver<Rated>,
        mut answers: mpsc::Receiver<(PlayerId, Played)>,
    ) {
        let mut count = tokio::time::interval(COUNT_EVERY);
        loop {
            tokio::select! {
                m = rated.recv() => match m {
                    Some(m) => {
                        if let Err(e) = self.rated_match(&m).await {
                            tracing::error!(error = %e, match_id = %m.match_id, "fair-play signals not kept");
                        }
                    }
                    None => return,
                },
                a = answers.recv() => if let Some((player, played)) = a {
                    match self.played(player, played).await {
                        Ok(true) => self.answers.assessed.increment(1),
                        Ok(false) => self.answers.left_out.increment(1),
                        Err(e) => {
                            self.answers.left_out.increment(1);
                            tracing::error!(error = %e, "fair-play signals not kept");
                        }
                    }
                },
                _ = count.tick() => self.count().await,
            }
        }
    }

    async fn count(&self) {
        match self.db.decision_counts().await {
            Ok((raised, cleared, banned)) => {
                for (counter, n) in self.counters.iter().zip([raised, cleared, banned]) {
                    counter.absolute(n);
                }
            }
            Err(e) => tracing::warn!(error = %e, "fair-play counts not read"),
        }
    }

    async fn rated_match(&self, m: &Rated) -> Result<(), DbError> {
        let wins = self.db.rated_wins(m.match_id).await?;
        let answers = tokio::task::spawn_blocking(move || answers_of(&wins))
            .await
            .map_err(|_| DbError::Invariant("counting solutions panicked"))?;
        for &player in &m.players {
            let theirs: Vec<Answer> = answers
                .iter()
                .filter(|(p, _)| *p == player.0)
                .map(|(_, a)| a.clone())
                .collect();
            if !theirs.is_empty() {
                self.keep(player, theirs).await?;
            }
        }
        Ok(())
    }

    /// An answer from the daily, a run or a challenge: its hand counted off
    /// the player's path (once for the latest hands), then kept and
    /// assessed. Whether it was: false when it could not be read.
    async fn played(&self, player: PlayerId, played: Played) -> Result<bool, DbError> {
        let solutions = match self.solutions.get(&played.deal, played.rules) {
            Some(n) => Ok(n),
            None => {
                let (deal, rules) = (played.deal.clone(), played.rules);
                let counted = tokio::task::spawn_blocking(move || count(&deal, rules))
                    .await
                    .map_err(|_| DbError::Invariant("counting solutions panicked"))?;
                if let Ok(n) = counted {
                    self.solutions.put(played.deal.clone(), played.rules, n);
                }
                counted
            }
        };
        match solutions.and_then(|n| answer_played(played, n)) {
            Ok(answer) => self.keep(player, vec![answer]).await.map(|()| true),
            Err(why) => {
                tracing::warn!(why, "an answer left out of the fair-play signals");
                Ok(false)
            }
        }
    }

    /// Keeps `answers` of `player` and assesses their window.
    async fn keep(&self, player: PlayerId, answers: Vec<Answer>) -> Result<(), DbError> {
        self.db
            .add_answers(player, &answers, window(&self.settings))
            .await?;
        let signals = self.db.signals(player).await?;
        if matches!(signals.standing, Some(Standing::Flagged | Standing::Banned)) {
            return Ok(());
        }
        if let Some(flag) = assess(&signals.answers, &self.settings, signals.cleared) {
            if self.db.raise_flag(player, &flag, now_ms()).await? {
                tracing::warn!(player = player.0, reasons = %flag.reasons.iter().map(|r| r.signal()).collect::<Vec<_>>().join(","), "fair play: flagged for review");
                self.recorder.boards_changed();
                self.count().await;
            }
        }
        Ok(())
    }
}

/// The answers of won rounds, each with its hand's distinct-solution count
/// (a round whose hand cannot be read or counted is left out, logged).
fn answers_of(wins: &[RatedWin]) -> Vec<(i64, Answer)> {
    wins.iter()
        .filter_map(|w| match answer_of(w) {
            Ok(a) => Some((w.winner, a)),
            Err(why) => {
                tracing::warn!(why, "a won round left out of the fair-play signals");
                None
            }
        })
        .collect()
}

/// The distinct solutions of `deal` under `rules`.
fn count(deal: &Deal, rules: Rules) -> Result<u64, &'static str> {
    let solutions = solver::count_solutions(&deal.hand, deal.objective, rules)
        .map_err(|_| "a hand the solver cannot count")?;
    Ok(u64::try_from(solutions).unwrap_or(u64::MAX))
}

fn answer_played(p: Played, solutions: u64) -> Result<Answer, &'static str> {
    Answer::new(
        p.answered_at_ms,
        p.elapsed_ms,
        p.deal,
        p.variant,
        solutions,
        &p.formula,
    )
    .map_err(|_| "a right answer that does not lex")
}

fn answer_of(w: &RatedWin) -> Result<Answer, &'static str> {
    let settings: RoomSettings =
        serde_json::from_str(&w.settings).map_err(|_| "settings that do not parse")?;
    let hand: Vec<i64> = serde_json::from_str(&w.cards).map_err(|_| "cards that do not parse")?;
    let solutions = solver::count_solutions(&hand, w.objective, settings.rules)
        .map_err(|_| "a hand the solver cannot count")?;
    let deal = krypto_core::cards::Deal {
        objective: w.objective,
        hand,
    };
    Answer::new(
        u64::try_from(w.ended_at).unwrap_or(0),
        u64::try_from(w.elapsed_ms).unwrap_or(0),
        deal,
        settings.variant,
        u64::try_from(solutions).unwrap_or(u64::MAX),
        &w.formula,
    )
    .map_err(|_| "a winning formula that does not lex")
}
