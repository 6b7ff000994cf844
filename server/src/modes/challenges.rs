//! Challenges on the server: `challenge_create` stores the last hand the
//! player solved on this connection, or the last round they solved in
//! their room (`rooms::solves`), with their result; `challenge_start`
//! deals it to whoever opens the code, timed like the daily (a stored
//! [`Attempt`] per player); `challenge_submit` judges and, when right,
//! shows both results side by side. Every result is kept, for the
//! challenger's list (`GET /api/challenges/{code}`).
//!
//! A challenge of **today's Krypto** is the daily for whoever takes it: one
//! hand, one clock, one result. Taking it starts the player's daily (or goes
//! on with the one running), each miss and the solve count for both, and a
//! player who has solved today's daily already is shown that result, not
//! dealt the hand again. So nobody sees today's hand through a friend's
//! link and then tops the day's board with it.

use krypto_core::cards::Deal;
use krypto_core::modes::challenge::{compare, ChallengeCode};
use krypto_core::modes::clock::Attempt;
use krypto_core::modes::{Judgement, RULES};
use krypto_core::protocol::{ErrorCode, ServerMessage, Timed};
use krypto_core::rules::Rules;

use super::daily::{attempt_of, day_text, deal};
use super::{db_ms, from_db_ms, verdict, Asker, Play};
use crate::db::modes::ChallengeRow;

/// Fresh codes drawn before giving up on a store full of them (31^8 codes:
/// a collision is already rare).
const CODE_TRIES: usize = 5;

/// A stored challenge as the rules know it.
pub(crate) struct Stored {
    /// The challenger's name.
    pub(crate) by: String,
    /// The hand.
    pub(crate) deal: Deal,
    /// The rule set.
    pub(crate) rules: Rules,
    /// The challenger's result.
    pub(crate) to_beat: Timed,
}

/// Reads a stored row; `None` when it does not parse (never stored so).
pub(crate) fn stored(row: ChallengeRow) -> Option<Stored> {
    Some(Stored {
        by: row.name,
        deal: Deal {
            objective: row.objective,
            hand: serde_json::from_str(&row.cards).ok()?,
        },
        rules: row.rules.parse().ok()?,
        to_beat: Timed {
            elapsed_ms: from_db_ms(row.elapsed_ms),
            misses: u32::try_from(row.misses).unwrap_or(u32::MAX),
        },
    })
}

impl Play {
    /// `challenge_create`: a challenge of the last hand solved here, or of
    /// the room's `round` the player solved (as the room recorded it).
    pub(crate) async fn challenge_create(&mut self, asker: &Asker<'_>, round: Option<u32>) {
        let from_room;
        let solved = match round {
            None => match &self.last_solved {
                Some(solved) => solved,
                None => {
                    return asker.error(
                        ErrorCode::WrongState,
                        "solve a hand first (the daily, a run's hand, a room's round)",
                    )
                }
            },
            Some(round) => match asker.shared.rooms.solves.of(asker.player, round) {
                Some(solve) => {
                    from_room = super::Solved {
                        deal: solve.deal,
                        rules: solve.rules,
                        result: Timed {
                            elapsed_ms: solve.elapsed_ms,
                            misses: solve.misses,
                        },
                    };
                    &from_room
                }
                None => {
                    return asker.error(
                        ErrorCode::WrongState,
                        format!("round {round} is not the last round you solved in your room"),
                    )
                }
            },
        };
        let Ok(cards) = serde_json::to_string(&solved.deal.hand) else {
            return asker.error(ErrorCode::Internal, "the hand could not be stored");
        };
        let row = ChallengeRow {
            player_id: asker.player.0,
            name: String::new(),
            objective: solved.deal.objective,
            cards,
            rules: solved.rules.as_str().to_owned(),
            elapsed_ms: db_ms(solved.result.elapsed_ms),
            misses: i64::from(solved.result.misses),
        };
        let mut rng = krypto_core::cards::secure_rng();
        for _ in 0..CODE_TRIES {
            let code = ChallengeCode::random(&mut rng);
            match asker
                .shared
                .mode_writes
                .challenge_insert(code.as_str(), asker.player, &row, db_ms(asker.now_ms()))
                .await
            {
                Ok(true) => return asker.reply(ServerMessage::Challenge { code }),
                Ok(false) => continue,
                Err(e) => return asker.db_failed(&e),
            }
        }
        asker.error(ErrorCode::Internal, "no free challenge code; try again");
    }

    /// `challenge_start`: the challenge's hand and this player's clock.
    pub(crate) async fn challenge_start(&mut self, asker: &Asker<'_>, code: ChallengeCode) {
        let Some(challenge) = find(asker, &code).await else {
            return;
        };
        let now = asker.now_ms();
        let Some(daily) = todays_krypto(asker, &challenge, now).await else {
            return;
        };
        // Today's daily solved already: that is the result, the hand is not
        // played twice.
        if let Some(Today { attempt, .. }) = daily.as_ref().filter(|t| t.attempt.is_solved()) {
            self.challenge = None;
            reply_hand(asker, &code, &challenge, attempt, now);
            if let Some(yours) = attempt.result() {
                result(asker, code, &challenge, yours);
            }
            return;
        }
        // The challenge's clock is the daily's, running since the player
        // first saw the hand.
        let started = daily.as_ref().map_or(now, |t| t.attempt.started_ms);
        let Some(mut attempt) = attempt_at(asker, &code, started).await else {
            return;
        };
        // Its clock and misses are the daily's (misses made there before the
        // link was opened count too).
        if let Some(today) = &daily {
            attempt = today.attempt;
        }
        self.challenge = Some(code.clone());
        reply_hand(asker, &code, &challenge, &attempt, now);
        if let Some(yours) = attempt.result() {
            result(asker, code, &challenge, yours);
        }
    }

    /// `challenge_submit`: judges an answer to the challenge last started.
    pub(crate) async fn challenge_submit(&mut self, asker: &Asker<'_>, formula: &str) {
        let Some(code) = self.challenge.clone() else {
            return asker.error(
                ErrorCode::WrongState,
                "open a challenge first (challenge_start)",
            );
        };
        let Some(challenge) = find(asker, &code).await else {
            return;
        };
        let now = asker.now_ms();
        let Some(daily) = todays_krypto(asker, &challenge, now).await else {
            return;
        };
        if daily.as_ref().is_some_and(|t| t.attempt.is_solved()) {
            return asker.error(
                ErrorCode::WrongState,
                "you solved this hand as today's Krypto already",
            );
        }
        let started = daily.as_ref().map_or(now, |t| t.attempt.started_ms);
        let Some(mut attempt) = attempt_at(asker, &code, started).await else {
            return;
        };
        // Judged on the daily's clock and misses, so the time is the same
        // whichever door the answer came in by.
        if let Some(today) = &daily {
            attempt = today.attempt;
        }
        let Ok(judgement) = attempt.answer(&challenge.deal, challenge.rules, formula, now) else {
            return asker.error(ErrorCode::WrongState, "this challenge is solved already");
        };
        let writes = &asker.shared.mode_writes;
        let mut played = None;
        let stored = match &judgement {
            Judgement::Wrong(_) => match writes.challenge_miss(code.as_str(), asker.player).await {
                Ok(()) => match &daily {
                    Some(today) => writes.daily_miss(asker.player, &today.day).await,
                    None => Ok(()),
                },
                Err(e) => Err(e),
            },
            Judgement::Right { printed, .. } => {
                let solved_ms = db_ms(attempt.solved_ms.unwrap_or(now));
                let elapsed_ms = db_ms(attempt.elapsed_ms(now));
                let solved = writes
                    .challenge_solve(code.as_str(), asker.player, solved_ms, elapsed_ms)
                    .await;
                // Today's Krypto solved through a friend's link is the
                // player's daily too: on the day's board, in the streak.
                let solved = match (&daily, solved) {
                    (Some(today), Ok(true)) => {
                        let rated = !asker.bot;
                        writes
                            .daily_solve(
                                asker.player,
                                &today.day,
                                solved_ms,
                                elapsed_ms,
                                printed,
                                rated,
                            )
                            .await
                            .map(|_| true)
                    }
                    (_, solved) => solved,
                };
                if matches!(solved, Ok(true)) {
                    let (deal, rules) = (&challenge.deal, challenge.rules);
                    played = asker.played(deal, rules, formula, attempt.started_ms, now);
                }
                solved.map(|_| ())
            }
            Judgement::NotAnAttempt(_) => Ok(()),
        };
        if let Err(e) = stored {
            return asker.db_failed(&e);
        }
        asker.reply(verdict(0, &judgement));
        if let Some(yours) = attempt.result() {
            self.last_solved = Some(super::Solved {
                deal: challenge.deal.clone(),
                rules: challenge.rules,
                result: yours,
            });
            result(asker, code, &challenge, yours);
        }
        asker.note(played).await;
    }
}

/// The player's today's Krypto, when a challenge is of its hand.
struct Today {
    /// The day, as stored.
    day: String,
    /// The player's attempt at it, started now if this is their first look.
    attempt: Attempt,
}

/// `Some(None)` when `challenge` is not today's Krypto's hand; `Some(Some)`
/// with the player's daily attempt (begun now when they had none) when it
/// is; `None` once the player was told why not (a database away).
async fn todays_krypto(asker: &Asker<'_>, challenge: &Stored, now: u64) -> Option<Option<Today>> {
    let today = deal(asker, None, now).await?;
    if !today.rated || today.deal != challenge.deal || challenge.rules != RULES {
        return Some(None);
    }
    let day = day_text(today.date);
    match asker
        .shared
        .mode_writes
        .daily_attempt(asker.player, &day, db_ms(now))
        .await
    {
        Ok(row) => Some(Some(Today {
            day,
            attempt: attempt_of(&row),
        })),
        Err(e) => {
            asker.db_failed(&e);
            None
        }
    }
}

/// This player's attempt at challenge `code`, its clock started at
/// `started` if this is the first look; `None` once the player was told why
/// not.
async fn attempt_at(asker: &Asker<'_>, code: &ChallengeCode, started: u64) -> Option<Attempt> {
    match asker
        .shared
        .mode_writes
        .challenge_attempt(code.as_str(), asker.player, db_ms(started))
        .await
    {
        Ok(row) => Some(attempt_of(&row)),
        Err(e) => {
            asker.db_failed(&e);
            None
        }
    }
}

/// `challenge_hand`: the hand, who set it, the time to beat and the
/// player's clock.
fn reply_hand(
    asker: &Asker<'_>,
    code: &ChallengeCode,
    challenge: &Stored,
    attempt: &Attempt,
    now: u64,
) {
    asker.reply(ServerMessage::ChallengeHand {
        code: code.clone(),
        by: challenge.by.clone(),
        objective: challenge.deal.objective,
        cards: challenge.deal.hand.clone(),
        rules: challenge.rules,
        elapsed_ms: attempt.elapsed_ms(now),
        to_beat: challenge.to_beat,
    });
}

async fn find(asker: &Asker<'_>, code: &ChallengeCode) -> Option<Stored> {
    match asker.shared.db.challenge(code.as_str()).await {
        Ok(Some(row)) => match stored(row) {
            Some(found) => Some(found),
            None => {
                asker.db_failed(&crate::db::DbError::Invariant(
                    "a stored challenge is unreadable",
                ));
                None
            }
        },
        Ok(None) => {
            asker.error(ErrorCode::ChallengeNotFound, format!("no challenge {code}"));
            None
        }
        Err(e) => {
            asker.db_failed(&e);
            None
        }
    }
}

/// `challenge_result`: both results side by side.
fn result(asker: &Asker<'_>, code: ChallengeCode, challenge: &Stored, yours: Timed) {
    asker.reply(ServerMessage::ChallengeResult {
        code,
        by: challenge.by.clone(),
        yours,
        theirs: challenge.to_beat,
        outcome: compare(yours, challenge.to_beat),
    });
}
