//! Challenges on the server: `challenge_create` stores the last hand the
//! player solved on this connection, or the last round they solved in
//! their room (`rooms::solves`), with their result; `challenge_start`
//! deals it to whoever opens the code, timed like the daily (a stored
//! [`Attempt`] per player); `challenge_submit` judges and, when right,
//! shows both results side by side. Every result is kept, for the
//! challenger's list (`GET /api/challenges/{code}`).

use krypto_core::cards::Deal;
use krypto_core::modes::challenge::{compare, ChallengeCode};
use krypto_core::modes::clock::Attempt;
use krypto_core::modes::Judgement;
use krypto_core::protocol::{ErrorCode, ServerMessage, Timed};
use krypto_core::rules::Rules;

use super::daily::attempt_of;
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
        let Some((challenge, attempt, now)) = opened(asker, &code).await else {
            return;
        };
        self.challenge = Some(code.clone());
        asker.reply(ServerMessage::ChallengeHand {
            code: code.clone(),
            by: challenge.by.clone(),
            objective: challenge.deal.objective,
            cards: challenge.deal.hand.clone(),
            rules: challenge.rules,
            elapsed_ms: attempt.elapsed_ms(now),
            to_beat: challenge.to_beat,
        });
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
        let Some((challenge, mut attempt, now)) = opened(asker, &code).await else {
            return;
        };
        let Ok(judgement) = attempt.answer(&challenge.deal, challenge.rules, formula, now) else {
            return asker.error(ErrorCode::WrongState, "this challenge is solved already");
        };
        let writes = &asker.shared.mode_writes;
        let mut played = None;
        let stored = match &judgement {
            Judgement::Wrong(_) => writes.challenge_miss(code.as_str(), asker.player).await,
            Judgement::Right { .. } => {
                let solved = writes
                    .challenge_solve(
                        code.as_str(),
                        asker.player,
                        db_ms(attempt.solved_ms.unwrap_or(now)),
                        db_ms(attempt.elapsed_ms(now)),
                    )
                    .await;
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

/// The stored challenge, or `challenge_not_found` sent.
/// The challenge `code` and this player's attempt at it (its clock started
/// now if this is the first look), with the time read; `None` once the
/// player was told why not.
async fn opened(asker: &Asker<'_>, code: &ChallengeCode) -> Option<(Stored, Attempt, u64)> {
    let challenge = find(asker, code).await?;
    let now = asker.now_ms();
    match asker
        .shared
        .mode_writes
        .challenge_attempt(code.as_str(), asker.player, db_ms(now))
        .await
    {
        Ok(row) => Some((challenge, attempt_of(&row), now)),
        Err(e) => {
            asker.db_failed(&e);
            None
        }
    }
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
