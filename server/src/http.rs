//! The HTTP side of the single port: the WebSocket upgrade at `/ws`, the
//! health check at `/healthz`, and the scores API (`/api/leaderboard`,
//! `/api/players/{name}`), which answers JSON and explains every refusal as
//! `{"error": {"code", "message"}}`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use krypto_core::protocol::{Metric, Period};
use serde::Serialize;

use crate::connection::{self, SERVER_VERSION};
use crate::leaderboard::{self, BoardError, BoardQuery, DEFAULT_LIMIT, MAX_LIMIT};
use crate::listener::PeerAddr;
use crate::periods;
use crate::Shared;

/// The routes, sharing the server's state.
pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/ws", get(upgrade))
        .route("/healthz", get(healthz))
        .route("/api/leaderboard", get(get_leaderboard))
        .route("/api/players/{name}", get(get_player))
        .with_state(shared)
}

/// An API refusal: the status and `{"error": {"code", "message"}}`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl ApiError {
    fn bad_request(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            code: "bad_request",
            message: message.into(),
        }
    }
}

impl From<BoardError> for ApiError {
    fn from(e: BoardError) -> Self {
        match e {
            BoardError::PlayerNotFound(_) => ApiError {
                status: StatusCode::NOT_FOUND,
                code: "player_not_found",
                message: e.to_string(),
            },
            BoardError::Db(e) => {
                tracing::error!(error = %e, "scores query failed");
                ApiError {
                    status: StatusCode::INTERNAL_SERVER_ERROR,
                    code: "internal",
                    message: "the server could not read the scores; try again".into(),
                }
            }
        }
    }
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: ErrorDetail<'a>,
}

#[derive(Serialize)]
struct ErrorDetail<'a> {
    code: &'a str,
    message: &'a str,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            error: ErrorDetail {
                code: self.code,
                message: &self.message,
            },
        };
        (self.status, Json(body)).into_response()
    }
}

/// Reads `metric`, `period`, `limit` and `around`; an empty value means the
/// default, anything else unknown is refused. Other parameters are ignored.
pub fn parse_board_query(params: &HashMap<String, String>) -> Result<BoardQuery, ApiError> {
    let given = |name: &str| params.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
    let mut query = BoardQuery::default();
    if let Some(metric) = given("metric") {
        query.metric = match metric {
            "rating" => Metric::Rating,
            "wins" => Metric::Wins,
            "rounds" => Metric::Rounds,
            "fastest" => Metric::Fastest,
            other => {
                return Err(ApiError::bad_request(format!(
                    "metric must be rating, wins, rounds or fastest, not {other:?}"
                )))
            }
        };
    }
    if let Some(period) = given("period") {
        query.period = match period {
            "all" => Period::All,
            "month" => Period::Month,
            "week" => Period::Week,
            "day" => Period::Day,
            other => {
                return Err(ApiError::bad_request(format!(
                    "period must be all, month, week or day, not {other:?}"
                )))
            }
        };
    }
    if let Some(limit) = given("limit") {
        query.limit = match limit.parse::<u32>() {
            Ok(n) if (1..=MAX_LIMIT).contains(&n) => n,
            _ => {
                return Err(ApiError::bad_request(format!(
                    "limit must be a whole number from 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT}), not {limit:?}"
                )))
            }
        };
    }
    if let Some(around) = given("around") {
        if around.chars().count() > crate::identity::MAX_NAME_CHARS {
            return Err(ApiError::bad_request(format!(
                "around must be a player's name (at most {} characters)",
                crate::identity::MAX_NAME_CHARS
            )));
        }
        query.around = Some(around.to_owned());
    }
    Ok(query)
}

async fn get_leaderboard(
    State(shared): State<Arc<Shared>>,
    params: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Result<Json<leaderboard::Board>, ApiError> {
    let Query(params) = params.map_err(|e| ApiError::bad_request(e.body_text()))?;
    let query = parse_board_query(&params)?;
    let board = leaderboard::board(
        &shared.db,
        &query,
        shared.config.ranking(),
        periods::now_ms(),
    )
    .await?;
    Ok(Json(board))
}

async fn get_player(
    State(shared): State<Arc<Shared>>,
    name: Result<Path<String>, PathRejection>,
) -> Result<Json<leaderboard::Profile>, ApiError> {
    let Path(name) = name.map_err(|e| ApiError::bad_request(e.body_text()))?;
    let profile = leaderboard::profile(&shared.db, &name, shared.config.ranking()).await?;
    Ok(Json(profile))
}

/// Body of `GET /healthz`.
#[derive(Debug, Serialize)]
struct Health {
    /// Always "ok": the process answers, the database opened.
    status: &'static str,
    /// The server's version.
    version: &'static str,
}

async fn healthz() -> Json<Health> {
    Json(Health {
        status: "ok",
        version: SERVER_VERSION,
    })
}

async fn upgrade(
    ws: WebSocketUpgrade,
    State(shared): State<Arc<Shared>>,
    ConnectInfo(PeerAddr(peer)): ConnectInfo<PeerAddr>,
) -> Response {
    let max = shared.config.max_frame_bytes;
    let tracker = shared.tracker.clone();
    // tungstenite's default read buffer is 128 KiB, zero-filled before each
    // read: about 140 KiB per idle socket, 1.4 GiB at 10,000 players. Our
    // frames are at most 16 KiB and usually under 200 bytes; 4 KiB is plenty.
    ws.max_frame_size(max)
        .max_message_size(max)
        .read_buffer_size(4 * 1024)
        .on_upgrade(move |socket| tracker.track_future(connection::serve(socket, shared, peer)))
        .into_response()
}
