//! The daily Krypto on the server: `daily_start` and `daily_submit`.
//!
//! The secret and the first day are stored once (the first node to need
//! them stores its own, every other reads that row), so every node deals
//! the same hand. Each player's attempt at a day is a database row made
//! the first time the hand is sent: asking again, on any node and after a
//! restart, answers the same hand with the same running clock. Only the
//! day's own hand is rated (the day's board, the streak), and a result
//! counts when it comes in before that UTC day ends.

use chrono::NaiveDate;
use krypto_core::modes::clock::Attempt;
use krypto_core::modes::daily::{utc_date, Daily, DailyHand, DailySecret};
use krypto_core::modes::share::ShareLine;
use krypto_core::modes::solutions::marked_solutions;
use krypto_core::modes::streak::streak;
use krypto_core::modes::{Judgement, RULES};
use krypto_core::protocol::{ErrorCode, ServerMessage, Timed};
use tokio::sync::OnceCell;

use super::{db_ms, from_db_ms, verdict, Asker, Play, Solved};
use crate::db::modes::AttemptRow;
use crate::db::{Db, DbError};

/// Days whose hands [`DailyKeeper`] keeps dealt at most (today's and the
/// archive's most asked; past that the kept ones are dropped and dealt
/// again on demand).
const KEPT_HANDS: usize = 64;

/// The server's daily, read from the database once and kept, with the
/// hands it dealt: a day's hand never changes, and dealing one runs the
/// solver over draws until one is medium (a millisecond or more), which a
/// rush would pay on every `daily_start` and every answer.
#[derive(Debug, Default)]
pub(crate) struct DailyKeeper {
    daily: OnceCell<Daily>,
    hands: std::sync::Mutex<std::collections::HashMap<NaiveDate, DailyHand>>,
}

impl DailyKeeper {
    /// The daily: stored on the first call of the first node (with a fresh
    /// secret and `now_ms`'s day as `#1`), read back on every other.
    pub(crate) async fn get(&self, db: &Db, now_ms: u64) -> Result<&Daily, DbError> {
        self.daily
            .get_or_try_init(|| async {
                let fresh = DailySecret::generate();
                let first = utc_date(now_ms).format("%Y-%m-%d").to_string();
                let (secret_hex, first_day) = db
                    .daily_setup(&hex::encode(fresh.as_bytes()), &first)
                    .await?;
                let secret: [u8; 32] = hex::decode(&secret_hex)
                    .ok()
                    .and_then(|b| b.try_into().ok())
                    .ok_or(DbError::Invariant(
                        "the stored daily secret is not 32 bytes",
                    ))?;
                let first_day = parse_day(&first_day)
                    .ok_or(DbError::Invariant("the stored first daily is not a date"))?;
                Ok(Daily::new(first_day, DailySecret::from_bytes(secret)))
            })
            .await
    }
}

impl DailyKeeper {
    /// The hand of `date` as `daily` deals it on `today`, dealt once and
    /// kept (only a day that may be dealt is ever kept: never one to come).
    fn deal(
        &self,
        daily: &Daily,
        date: NaiveDate,
        today: NaiveDate,
    ) -> Result<DailyHand, krypto_core::modes::daily::DayError> {
        let kept = self
            .hands
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(&date)
            .cloned();
        if let Some(hand) = kept {
            // Kept when it was dealt: whether it is rated is today's
            // question (yesterday's hand is the archive's now).
            return Ok(DailyHand {
                rated: date == today,
                ..hand
            });
        }
        let hand = daily.deal(date, today)?;
        let mut hands = self
            .hands
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if hands.len() >= KEPT_HANDS {
            hands.clear();
        }
        hands.insert(date, hand.clone());
        Ok(hand)
    }
}

/// A day as the database keeps it.
pub(crate) fn day_text(date: NaiveDate) -> String {
    date.format("%Y-%m-%d").to_string()
}

/// A stored day read back.
pub(crate) fn parse_day(text: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()
}

/// An attempt as the rules know it.
pub(crate) fn attempt_of(row: &AttemptRow) -> Attempt {
    Attempt {
        started_ms: from_db_ms(row.started_ms),
        misses: u32::try_from(row.misses).unwrap_or(u32::MAX),
        solved_ms: row.solved_ms.map(from_db_ms),
    }
}

impl Play {
    /// `daily_start`: today's hand, or a past day's, with the player's
    /// clock (started now unless it runs already).
    pub(crate) async fn daily_start(&mut self, asker: &Asker<'_>, date: Option<NaiveDate>) {
        let now = asker.now_ms();
        let hand = match deal(asker, date, now).await {
            Some(hand) => hand,
            None => return,
        };
        let day = day_text(hand.date);
        let row = match asker
            .shared
            .mode_writes
            .daily_attempt(asker.player, &day, db_ms(now))
            .await
        {
            Ok(row) => row,
            Err(e) => return asker.db_failed(&e),
        };
        let attempt = attempt_of(&row);
        self.daily = Some(hand.date);
        asker.reply(ServerMessage::Daily {
            number: hand.number,
            date: hand.date,
            objective: hand.deal.objective,
            cards: hand.deal.hand.clone(),
            elapsed_ms: attempt.elapsed_ms(now),
            rated: hand.rated,
        });
        if attempt.is_solved() {
            let (formula, rated) = match asker.shared.db.daily_result(asker.player, &day).await {
                Ok(Some(row)) => (row.formula.unwrap_or_default(), row.rated == 1),
                Ok(None) => return,
                Err(e) => return asker.db_failed(&e),
            };
            self.send_solved(asker, &hand, &attempt, &formula, rated)
                .await;
        }
    }

    /// `daily_submit`: judges an answer to the day last asked for.
    pub(crate) async fn daily_submit(&mut self, asker: &Asker<'_>, formula: &str) {
        let Some(date) = self.daily else {
            return asker.error(
                ErrorCode::WrongState,
                "ask for the daily first (daily_start)",
            );
        };
        let now = asker.now_ms();
        let Some(hand) = deal(asker, Some(date), now).await else {
            return;
        };
        let day = day_text(date);
        let db = &asker.shared.db;
        let writes = &asker.shared.mode_writes;
        let row = match db.daily_attempt_stored(asker.player, &day).await {
            Ok(Some(row)) => row,
            Ok(None) => {
                return asker.error(
                    ErrorCode::WrongState,
                    "ask for the daily first (daily_start)",
                )
            }
            Err(e) => return asker.db_failed(&e),
        };
        let mut attempt = attempt_of(&row);
        let Ok(judgement) = attempt.answer(&hand.deal, RULES, formula, now) else {
            return asker.error(ErrorCode::WrongState, "this daily is solved already");
        };
        let mut played = None;
        let mut solved = None;
        let stored = match &judgement {
            Judgement::Wrong(_) => writes.daily_miss(asker.player, &day).await,
            Judgement::Right { printed, .. } => {
                let rated = hand.rated && !asker.bot;
                let elapsed = attempt.elapsed_ms(now);
                let solved_ms = attempt.solved_ms.unwrap_or(now);
                let written = writes
                    .daily_solve(
                        asker.player,
                        &day,
                        db_ms(solved_ms),
                        db_ms(elapsed),
                        printed,
                        rated,
                    )
                    .await;
                written.map(|(counted, stored)| {
                    // The day's board is what a solver would top: its
                    // answers are assessed with the player's rated play.
                    if rated && counted {
                        played = asker.played(&hand.deal, RULES, formula, attempt.started_ms, now);
                    }
                    solved = Some(stored);
                })
            }
            Judgement::NotAnAttempt(_) => Ok(()),
        };
        if let Err(e) = stored {
            return asker.db_failed(&e);
        }
        asker.reply(verdict(0, &judgement));
        // As stored: a second tab's result, if it won, is the one that
        // stands.
        if let Some(stored) = solved {
            let formula = stored.formula.unwrap_or_default();
            let attempt = attempt_of(&stored.attempt);
            self.send_solved(asker, &hand, &attempt, &formula, stored.rated)
                .await;
        }
        asker.note(played).await;
    }

    /// `daily_solved` for a solved attempt, from what is stored (its
    /// answer and whether it counted).
    async fn send_solved(
        &mut self,
        asker: &Asker<'_>,
        hand: &DailyHand,
        attempt: &Attempt,
        formula: &str,
        rated: bool,
    ) {
        let Some(result) = attempt.result() else {
            return;
        };
        let day = day_text(hand.date);
        let (streak, rank) = if rated {
            match standing(asker, &day).await {
                Ok(found) => found,
                Err(e) => return asker.db_failed(&e),
            }
        } else {
            (0, None)
        };
        let solutions = marked_solutions(&hand.deal, RULES, formula).unwrap_or_default();
        let link = asker
            .shared
            .join_urls
            .first()
            .map(|base| format!("{base}/daily"));
        let share = ShareLine {
            number: hand.number,
            elapsed_ms: result.elapsed_ms,
            misses: result.misses,
            streak,
        }
        .text(link.as_deref());
        self.last_solved = Some(Solved {
            deal: hand.deal.clone(),
            rules: RULES,
            result: Timed { ..result },
        });
        asker.reply(ServerMessage::DailySolved {
            number: hand.number,
            elapsed_ms: result.elapsed_ms,
            misses: result.misses,
            streak,
            rank: rank.map(|r| u32::try_from(r).unwrap_or(u32::MAX)),
            share,
            solutions,
        });
    }
}

/// The hand of `date` (today when absent), or the `no_such_day` error sent.
pub(crate) async fn deal(
    asker: &Asker<'_>,
    date: Option<NaiveDate>,
    now: u64,
) -> Option<DailyHand> {
    let daily = match asker.shared.daily.get(&asker.shared.db, now).await {
        Ok(daily) => daily,
        Err(e) => {
            asker.db_failed(&e);
            return None;
        }
    };
    let today = utc_date(now);
    match asker.shared.daily.deal(daily, date.unwrap_or(today), today) {
        Ok(hand) => Some(hand),
        Err(e) => {
            asker.error(ErrorCode::NoSuchDay, e.to_string());
            None
        }
    }
}

/// The player's streak (to today) and place on `day`'s board.
async fn standing(asker: &Asker<'_>, day: &str) -> Result<(u32, Option<u64>), DbError> {
    let db = &asker.shared.db;
    let now = asker.now_ms();
    let first = asker.shared.daily.get(db, now).await?.first_day();
    let days = db.daily_rated_days(asker.player, &day_text(first)).await?;
    let days: Vec<NaiveDate> = days.iter().filter_map(|d| parse_day(d)).collect();
    let rank = db.daily_rank(day, asker.player).await?;
    Ok((streak(&days, utc_date(now)), rank))
}

/// What `GET /api/daily` shows: today's number and date, and how many
/// solved it (never the hand).
pub(crate) async fn today(
    keeper: &DailyKeeper,
    db: &Db,
    now_ms: u64,
) -> Result<(u32, NaiveDate, u64), DbError> {
    let daily = keeper.get(db, now_ms).await?;
    let today = utc_date(now_ms);
    let number = daily.number(today, today).unwrap_or(0);
    let solvers = db.daily_solvers(&day_text(today)).await?;
    Ok((number, today, solvers))
}
