//! `krypto-server review`: the operator's view of the flags and their
//! decisions. Every decision is logged in the database with its time.

use krypto_core::names::key as name_key;
use serde::Serialize;

use crate::db::fair_play::{FlagRecord, Standing};
use crate::db::{Db, DbError};
use crate::scores::periods::now_ms;

/// What the operator asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Review {
    /// Flagged and banned players with their evidence.
    List {
        /// As JSON.
        json: bool,
    },
    /// One player's flag.
    Show {
        /// Their name.
        name: String,
        /// As JSON.
        json: bool,
    },
    /// Back on the boards; the same evidence never flags them again.
    Clear {
        /// Their name.
        name: String,
    },
    /// Off the boards for good, never rated, every rating recomputed
    /// without them.
    Ban {
        /// Their name.
        name: String,
    },
}

/// Why a review failed.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// The database failed.
    #[error(transparent)]
    Db(#[from] DbError),
    /// No flag for that name.
    #[error("no flagged player named {0:?}")]
    NotFlagged(String),
    /// No player of that name.
    #[error("no player named {0:?}")]
    NoPlayer(String),
    /// The report could not be written as JSON.
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),
}

/// A flag as the JSON report shows it.
#[derive(Debug, Serialize)]
struct Shown<'a> {
    name: &'a str,
    status: &'static str,
    flagged_at: i64,
    decided_at: i64,
    evidence: &'a krypto_core::fair_play::Flag,
    cleared_through: Option<u64>,
}

fn status(s: Standing) -> &'static str {
    s.as_str()
}

fn shown(f: &FlagRecord) -> Shown<'_> {
    Shown {
        name: &f.name,
        status: status(f.standing),
        flagged_at: f.flagged_at,
        decided_at: f.decided_at,
        evidence: &f.flag,
        cleared_through: f.cleared.through_ms,
    }
}

fn text(f: &FlagRecord) -> String {
    let mut out = format!(
        "{} — {} (flagged at {} ms UTC, last decision at {} ms)\n",
        f.name,
        status(f.standing),
        f.flagged_at,
        f.decided_at
    );
    for reason in &f.flag.reasons {
        out.push_str(&format!("  {}: {reason}\n", reason.signal()));
    }
    out
}

/// Runs `review` on `db`; what to print.
pub async fn run(db: &Db, review: &Review) -> Result<String, ReviewError> {
    match review {
        Review::List { json } => {
            let flags = db.flags().await?;
            if *json {
                let shown: Vec<Shown<'_>> = flags.iter().map(shown).collect();
                return Ok(serde_json::to_string_pretty(&shown)?);
            }
            if flags.is_empty() {
                return Ok("no player is flagged".to_owned());
            }
            Ok(flags.iter().map(text).collect::<String>())
        }
        Review::Show { name, json } => {
            let flag = db
                .flag_of(&name_key(name))
                .await?
                .ok_or_else(|| ReviewError::NotFlagged(name.clone()))?;
            if *json {
                return Ok(serde_json::to_string_pretty(&shown(&flag))?);
            }
            Ok(text(&flag))
        }
        Review::Clear { name } => {
            let flag = db
                .flag_of(&name_key(name))
                .await?
                .ok_or_else(|| ReviewError::NotFlagged(name.clone()))?;
            if db.clear_flag(flag.player, now_ms()).await? {
                Ok(format!("{} is cleared and back on the boards", flag.name))
            } else {
                Err(ReviewError::NotFlagged(name.clone()))
            }
        }
        Review::Ban { name } => {
            let player = db
                .player_by_name_key(&name_key(name))
                .await?
                .ok_or_else(|| ReviewError::NoPlayer(name.clone()))?;
            let flag = db.flag_of(&player.name_key).await?;
            db.ban(player.player_id(), flag.as_ref().map(|f| &f.flag), now_ms())
                .await?;
            Ok(format!(
                "{} is banned; every rating was recomputed without their matches",
                player.name
            ))
        }
    }
}
