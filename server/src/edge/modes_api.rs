//! The HTTP reads of the daily, runs and challenges: `GET /api/daily`,
//! `/api/daily/board`, `/api/runs/board` and `/api/challenges/{code}`
//! (routed in [`super::http`]), over the modes' own code (`crate::modes`).
//! No hand and no solution is ever served here: the daily's hand goes only
//! to a player whose clock it starts. Refusals are the API's one
//! [`ApiError`] like every other.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::Json;
use chrono::NaiveDate;
use krypto_core::modes::challenge::ChallengeCode;
use krypto_core::modes::daily::utc_date;
use krypto_core::protocol::{Period, PlayerId, Timed};
use serde::Serialize;

use super::http::ApiError;
use crate::db::DbError;
use crate::modes::challenges::stored;
use crate::modes::daily::{day_text, today};
use crate::modes::from_db_ms;
use crate::scores::leaderboard::{DEFAULT_LIMIT, MAX_LIMIT};
use crate::Shared;
use krypto_core::names::MAX_NAME_CHARS;

/// Most results `GET /api/challenges/{code}` lists.
pub(crate) const MAX_CHALLENGE_RESULTS: u32 = 100;

type Params = Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>;

/// The parameters, or a refusal that does not quote them back.
fn params(params: Params) -> Result<HashMap<String, String>, ApiError> {
    params.map(|Query(p)| p).map_err(|_| {
        ApiError::bad_request("the query string is not valid (percent-encoding or UTF-8)")
    })
}

fn given<'a>(params: &'a HashMap<String, String>, name: &str) -> Option<&'a str> {
    params.get(name).map(|v| v.trim()).filter(|v| !v.is_empty())
}

/// `limit` (1 to [`MAX_LIMIT`], default [`DEFAULT_LIMIT`]).
fn limit(params: &HashMap<String, String>) -> Result<u32, ApiError> {
    match given(params, "limit") {
        None => Ok(DEFAULT_LIMIT),
        Some(text) => match text.parse::<u32>() {
            Ok(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
            _ => Err(ApiError::bad_request(format!(
                "limit must be a whole number from 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT})"
            ))),
        },
    }
}

/// `around`: the player named, or `None`.
async fn around(
    shared: &Shared,
    params: &HashMap<String, String>,
) -> Result<Option<PlayerId>, ApiError> {
    let Some(name) = given(params, "around") else {
        return Ok(None);
    };
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(ApiError::bad_request(format!(
            "around must be a player's name (at most {MAX_NAME_CHARS} characters)"
        )));
    }
    let key = krypto_core::names::key(name);
    match shared.db.player_by_name_key(&key).await? {
        Some(row) => Ok(Some(PlayerId(row.id))),
        None => Err(ApiError::not_found(
            "player_not_found",
            "no player has that name",
        )),
    }
}

/// Where a page centred on `rank` starts.
fn offset_around(rank: Option<u64>, limit: u32) -> u64 {
    rank.map_or(0, |r| {
        r.saturating_sub(1).saturating_sub(u64::from(limit / 2))
    })
}

/// Body of `GET /api/daily`.
#[derive(Debug, Serialize)]
pub(crate) struct DailyInfo {
    number: u32,
    date: NaiveDate,
    solvers: u64,
}

/// `GET /api/daily`: today's number, date and solvers; never the hand.
pub(crate) async fn get_daily(
    State(shared): State<Arc<Shared>>,
) -> Result<Json<DailyInfo>, ApiError> {
    let now = shared.config.wall_clock.now_ms();
    let (number, date, solvers) = today(&shared.daily, &shared.db, now).await?;
    Ok(Json(DailyInfo {
        number,
        date,
        solvers,
    }))
}

/// A row of the daily's board.
#[derive(Debug, Serialize)]
pub(crate) struct DailyRow {
    rank: u64,
    name: String,
    elapsed_ms: u64,
    misses: u64,
}

/// Body of `GET /api/daily/board`.
#[derive(Debug, Serialize)]
pub(crate) struct DailyBoard {
    date: NaiveDate,
    number: u32,
    rows: Vec<DailyRow>,
}

/// `GET /api/daily/board?date=&around=&limit=`.
pub(crate) async fn get_daily_board(
    State(shared): State<Arc<Shared>>,
    query: Params,
) -> Result<Json<DailyBoard>, ApiError> {
    let query = params(query)?;
    let now = shared.config.wall_clock.now_ms();
    let today = utc_date(now);
    let date = match given(&query, "date") {
        None => today,
        Some(text) => NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .map_err(|_| ApiError::bad_request("date must be a day written YYYY-MM-DD"))?,
    };
    let limit = limit(&query)?;
    let daily = shared.daily.get(&shared.db, now).await?;
    let number = daily
        .number(date, today)
        .map_err(|e| ApiError::not_found("no_such_day", e.to_string()))?;
    let day = day_text(date);
    let rank = match around(&shared, &query).await? {
        Some(player) => shared.db.daily_rank(&day, player).await?,
        None => None,
    };
    let offset = offset_around(rank, limit);
    let rows = shared.db.daily_board(&day, offset, limit).await?;
    let rows = (offset + 1..)
        .zip(rows)
        .map(|(rank, r)| DailyRow {
            rank,
            name: r.name,
            elapsed_ms: from_db_ms(r.elapsed_ms),
            misses: from_db_ms(r.misses),
        })
        .collect();
    Ok(Json(DailyBoard { date, number, rows }))
}

/// A row of the runs board.
#[derive(Debug, Serialize)]
pub(crate) struct RunRow {
    rank: u64,
    name: String,
    score: u64,
}

/// Body of `GET /api/runs/board`.
#[derive(Debug, Serialize)]
pub(crate) struct RunsBoard {
    period: Period,
    rows: Vec<RunRow>,
}

/// `GET /api/runs/board?period=&around=&limit=`: each player's best run
/// of the day, the ISO week, the month or all time (UTC).
pub(crate) async fn get_runs_board(
    State(shared): State<Arc<Shared>>,
    query: Params,
) -> Result<Json<RunsBoard>, ApiError> {
    let query = params(query)?;
    let period = match given(&query, "period") {
        None => Period::Day,
        Some(text) => text
            .parse::<Period>()
            .map_err(|_| ApiError::bad_request("period must be day, week, month or all"))?,
    };
    let limit = limit(&query)?;
    let now = shared.config.wall_clock.now_ms();
    let start = krypto_core::periods::start(period, i64::try_from(now).unwrap_or(i64::MAX));
    let from = day_text(utc_date(u64::try_from(start).unwrap_or(0)));
    let to = day_text(utc_date(now));
    let rank = match around(&shared, &query).await? {
        Some(player) => shared.db.runs_rank(&from, &to, player).await?,
        None => None,
    };
    let offset = offset_around(rank, limit);
    let rows = shared.db.runs_board(&from, &to, offset, limit).await?;
    let rows = (offset + 1..)
        .zip(rows)
        .map(|(rank, r)| RunRow {
            rank,
            name: r.name,
            score: from_db_ms(r.score),
        })
        .collect();
    Ok(Json(RunsBoard { period, rows }))
}

/// One answer to a challenge.
#[derive(Debug, Serialize)]
pub(crate) struct ChallengeAnswer {
    name: String,
    elapsed_ms: u64,
    misses: u64,
}

/// The fastest `limit` answers to challenge `code`, as the API shows them
/// (the challenge's page and its setter's profile).
async fn challenge_answers(
    db: &crate::db::Db,
    code: &ChallengeCode,
    limit: u32,
) -> Result<Vec<ChallengeAnswer>, DbError> {
    Ok(db
        .challenge_results(code.as_str(), limit)
        .await?
        .into_iter()
        .map(|r| ChallengeAnswer {
            name: r.name,
            elapsed_ms: from_db_ms(r.elapsed_ms),
            misses: from_db_ms(r.misses),
        })
        .collect())
}

/// Body of `GET /api/challenges/{code}`: who set it, the time to beat and
/// the results in; never the hand (opening it starts a clock).
#[derive(Debug, Serialize)]
pub(crate) struct ChallengeInfo {
    code: ChallengeCode,
    by: String,
    to_beat: Timed,
    results: Vec<ChallengeAnswer>,
}

/// `GET /api/challenges/{code}`.
pub(crate) async fn get_challenge(
    State(shared): State<Arc<Shared>>,
    code: Result<Path<String>, axum::extract::rejection::PathRejection>,
) -> Result<Json<ChallengeInfo>, ApiError> {
    let Path(code) =
        code.map_err(|_| ApiError::bad_request("the code in the path is not valid"))?;
    let code: ChallengeCode =
        code.parse()
            .map_err(|e: krypto_core::modes::challenge::BadChallengeCode| {
                ApiError::bad_request(e.to_string())
            })?;
    let row = shared.db.challenge(code.as_str()).await?.ok_or_else(|| {
        ApiError::not_found("challenge_not_found", format!("no challenge {code}"))
    })?;
    let challenge = stored(row).ok_or(DbError::Invariant("a stored challenge is unreadable"))?;
    let results = challenge_answers(&shared.db, &code, MAX_CHALLENGE_RESULTS).await?;
    Ok(Json(ChallengeInfo {
        code,
        by: challenge.by,
        to_beat: challenge.to_beat,
        results,
    }))
}

/// Most challenges a profile lists (the newest).
pub(crate) const PROFILE_CHALLENGES: u32 = 10;
/// Most answers listed per challenge on a profile (the fastest);
/// `answers_total` counts them all.
pub(crate) const PROFILE_ANSWERS: u32 = 10;
/// Most days of runs a profile lists (the latest days with a run).
pub(crate) const PROFILE_RUN_DAYS: u32 = 14;

/// A challenge on its challenger's profile.
#[derive(Debug, Serialize)]
pub(crate) struct ProfileChallenge {
    code: ChallengeCode,
    /// The path of its link, `/c/CODE`.
    link: String,
    /// The UTC day it was made.
    date: NaiveDate,
    /// The challenger's result.
    to_beat: Timed,
    /// The fastest answers in (at most [`PROFILE_ANSWERS`]).
    answers: Vec<ChallengeAnswer>,
    /// How many answers are in.
    answers_total: u64,
}

/// A day's best run on a profile.
#[derive(Debug, Serialize)]
pub(crate) struct ProfileRunDay {
    date: String,
    score: u64,
    misses: u64,
    best_combo: u64,
    /// Runs finished that day.
    runs: u64,
}

/// What a profile shows of the daily-less modes: the player's newest
/// challenges with the answers in, and their best run per day.
#[derive(Debug, Serialize)]
pub(crate) struct ProfilePlay {
    challenges: Vec<ProfileChallenge>,
    runs: Vec<ProfileRunDay>,
}

/// The challenges and runs of `player`'s profile: at most
/// [`PROFILE_CHALLENGES`] × [`PROFILE_ANSWERS`] answers and
/// [`PROFILE_RUN_DAYS`] days, whatever the player did.
pub(crate) async fn profile_play(
    db: &crate::db::Db,
    player: PlayerId,
) -> Result<ProfilePlay, DbError> {
    let mut challenges = Vec::new();
    for row in db.challenges_by(player, PROFILE_CHALLENGES).await? {
        let Ok(code) = row.code.parse::<ChallengeCode>() else {
            return Err(DbError::Invariant("a stored challenge code is unreadable"));
        };
        let answers = challenge_answers(db, &code, PROFILE_ANSWERS).await?;
        challenges.push(ProfileChallenge {
            link: format!("/c/{code}"),
            code,
            date: utc_date(from_db_ms(row.created_ms)),
            to_beat: Timed {
                elapsed_ms: from_db_ms(row.elapsed_ms),
                misses: u32::try_from(row.misses).unwrap_or(u32::MAX),
            },
            answers,
            answers_total: from_db_ms(row.answers),
        });
    }
    let runs = db
        .run_days(player, PROFILE_RUN_DAYS)
        .await?
        .into_iter()
        .map(|r| ProfileRunDay {
            date: r.day,
            score: from_db_ms(r.score),
            misses: from_db_ms(r.misses),
            best_combo: from_db_ms(r.best_combo),
            runs: from_db_ms(r.runs),
        })
        .collect();
    Ok(ProfilePlay { challenges, runs })
}
