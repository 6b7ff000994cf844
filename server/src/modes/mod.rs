//! Playing without a room, on the server: the daily Krypto ([`daily`]),
//! challenges ([`challenges`]), solo runs ([`runs`]) and practice tables
//! ([`practice`], kept by the connection only, never recorded); their
//! HTTP reads are the edge's (`edge::modes_api`). The rules are krypto-core's (`krypto_core::modes`,
//! pure, time as an input); here they meet the database, the connection's
//! outbox and the server's `WallClock`.
//!
//! Every attempt lives in the database (`db::modes`), so asking again, a
//! reconnection, a restart or another node of a cluster resumes the same
//! clock. What a connection keeps ([`Play`]) is only which daily, challenge
//! or run its answers are for, and the last hand it solved.

pub(crate) mod challenges;
pub(crate) mod daily;
pub(crate) mod practice;
pub(crate) mod runs;

use krypto_core::cards::Deal;
use krypto_core::protocol::{ErrorCode, PlayerId, ServerEnvelope, ServerMessage, Timed};
use krypto_core::rules::Rules;

use crate::db::DbError;
use crate::fair_play::Played;
use crate::rooms::outbox::Outbox;
use crate::Shared;

/// The variant every hand of these modes is dealt in (the daily's, a
/// run's, and so a challenge's made of them).
const MODES_VARIANT: krypto_core::settings::Variant = krypto_core::settings::Variant::Krypto;

/// What a connection remembers between its requests of these modes.
#[derive(Debug, Default)]
pub(crate) struct Play {
    /// The day last asked for with `daily_start`: `daily_submit` answers it.
    daily: Option<chrono::NaiveDate>,
    /// The challenge last started: `challenge_submit` answers it.
    challenge: Option<krypto_core::protocol::ChallengeCode>,
    /// The run in play.
    run: Option<runs::RunHandle>,
    /// The last hand solved here, for `challenge_create` (never a
    /// practice hand: those are unrated).
    last_solved: Option<Solved>,
    /// The practice table, if the player sat down at one.
    practice: Option<krypto_core::modes::practice::Practice>,
}

impl Play {
    /// Whether a solo run is in play (its connection is not idle).
    pub(crate) fn run_in_play(&self) -> bool {
        self.run.is_some()
    }
}

/// A hand the player solved, with their result: what a challenge is made of.
#[derive(Debug, Clone)]
pub(crate) struct Solved {
    /// The hand.
    deal: Deal,
    /// The rule set it was solved under.
    rules: Rules,
    /// The player's result.
    result: Timed,
}

/// Who asks, and where replies go.
pub(crate) struct Asker<'a> {
    /// The server.
    pub(crate) shared: &'a std::sync::Arc<Shared>,
    /// The connection's outbox.
    pub(crate) outbox: &'a Outbox,
    /// The player.
    pub(crate) player: PlayerId,
    /// Whether the player said it is a bot (on no board).
    pub(crate) bot: bool,
    /// The request's id, echoed on replies.
    pub(crate) id: Option<String>,
}

impl Asker<'_> {
    fn reply(&self, message: ServerMessage) {
        self.outbox
            .send(&ServerEnvelope::reply(self.id.clone(), message));
    }

    fn error(&self, code: ErrorCode, message: impl Into<String>) {
        self.reply(ServerMessage::error(code, message));
    }

    /// A database failure: logged, and the player told to retry.
    fn db_failed(&self, e: &DbError) {
        tracing::warn!(error = %e, "a daily, run or challenge request could not reach the database");
        self.error(
            ErrorCode::Internal,
            "the server could not reach its database; try again",
        );
    }

    /// A right answer that counts (a board, a challenge's result), as the
    /// fair-play signals take it; `None` for a bot's (it is on no board).
    fn played(
        &self,
        deal: &Deal,
        rules: Rules,
        formula: &str,
        dealt_ms: u64,
        now_ms: u64,
    ) -> Option<Played> {
        (!self.bot).then(|| Played {
            answered_at_ms: now_ms,
            elapsed_ms: now_ms.saturating_sub(dealt_ms),
            deal: deal.clone(),
            variant: MODES_VARIANT,
            rules,
            formula: formula.to_owned(),
        })
    }

    /// Hands `played` to the fair-play signals, after the player's replies
    /// are sent: when the signals are a whole queue behind, this waits
    /// (and the connection's next request with it) rather than drop it.
    async fn note(&self, played: Option<Played>) {
        if let Some(played) = played {
            self.shared.fair_play.note_answer(self.player, played).await;
        }
    }

    /// The server's wall clock, in Unix milliseconds.
    fn now_ms(&self) -> u64 {
        self.shared.config.wall_clock.now_ms()
    }
}

/// The `verdict` of an answer outside a room.
fn verdict(round: u32, judgement: &krypto_core::modes::Judgement) -> ServerMessage {
    use krypto_core::modes::Judgement;
    match judgement {
        Judgement::Right { value, .. } => ServerMessage::Verdict {
            round,
            accepted: true,
            value: Some(value.to_string()),
            error: None,
            locked_out_ms: None,
        },
        Judgement::Wrong(error) | Judgement::NotAnAttempt(error) => ServerMessage::Verdict {
            round,
            accepted: false,
            value: None,
            error: Some(error.clone()),
            locked_out_ms: None,
        },
    }
}

/// Milliseconds as the database keeps them.
fn db_ms(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// Milliseconds read back from the database (never negative).
pub(crate) fn from_db_ms(ms: i64) -> u64 {
    u64::try_from(ms).unwrap_or(0)
}
