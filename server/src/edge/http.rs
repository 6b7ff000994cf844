//! The HTTP side of the single port: the WebSocket upgrade at `/ws`, the
//! health checks at `/healthz` (liveness) and `/readyz` (readiness: the
//! database and the recorder's journal), and the scores
//! API (`/api/leaderboard`, `/api/players/{name}`, `/api/matches/{id}`). Every refusal — unknown paths and methods
//! included — is JSON: `{"error": {"code", "message"}}`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{ConnectInfo, Path, Query, Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;

use crate::edge::listener::PeerAddr;
use crate::edge::ws_upgrade::{self, SocketLimits, Upgrade};
use crate::edge::{forwarded, transport};
use crate::ops::metrics;
use crate::scores::leaderboard::{self, BoardError, BoardQuery, DEFAULT_LIMIT, MAX_LIMIT};
use crate::scores::periods;
use crate::scores::recap::{self, RecapError};
use crate::session::identity::MAX_NAME_CHARS;
use crate::session::SERVER_VERSION;
use crate::Shared;
use krypto_core::protocol::MatchRecap;

/// The routes, sharing the server's state.
pub(crate) fn router(shared: Arc<Shared>) -> Router {
    let api = Router::new()
        .route("/api/leaderboard", get(get_leaderboard))
        .route("/api/players/{name}", get(get_player))
        .route("/api/matches/{id}", get(get_match))
        .route("/api/daily", get(super::modes_api::get_daily))
        .route("/api/daily/board", get(super::modes_api::get_daily_board))
        .route("/api/runs/board", get(super::modes_api::get_runs_board))
        .route(
            "/api/challenges/{code}",
            get(super::modes_api::get_challenge),
        )
        .route_layer(axum::middleware::from_fn_with_state(
            shared.clone(),
            read_deadline,
        ));
    Router::new()
        .route("/ws", get(upgrade))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .merge(api)
        .merge(crate::edge::web::routes(shared.own_bases.clone()))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            shared.clone(),
            rate_limit,
        ))
        .layer(axum::middleware::from_fn_with_state(
            shared.clone(),
            check_host,
        ))
        .with_state(shared)
}

/// `/ws` and `/api` answer only for this server's own names (see
/// [`crate::edge::hosts`]): a page that rebound a name of its own onto
/// this server's address gets 421 `unknown_host`. Pages and assets are
/// the same for every name and are served to any.
async fn check_host(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let checked = path == "/ws" || path.starts_with("/api/");
    if !checked || shared.hosts.allows(request.headers()) {
        return next.run(request).await;
    }
    ApiError::new(
        StatusCode::MISDIRECTED_REQUEST,
        "unknown_host",
        "this server does not answer for that host name (see --allowed-hosts)",
    )
    .into_response()
}

/// Every scores and modes read (`/api/…`) answers within the database
/// deadline (`--database-deadline-ms`), as the room's commits do: past it,
/// 503 `database_unavailable` with `Retry-After`, rather than a request
/// left hanging on a link that silently drops packets. What the request
/// was doing is dropped, a pooled connection with it (as `db::within`
/// does); a board served from memory never waits.
async fn read_deadline(
    State(shared): State<Arc<Shared>>,
    request: Request,
    next: Next,
) -> Response {
    let deadline = shared.config.database_deadline;
    match tokio::time::timeout(deadline, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            tracing::warn!(?deadline, "an API read ran past the database deadline");
            ApiError::database_unavailable().into_response()
        }
    }
}

/// Per-address budgets for what costs the server work: the scores API and
/// QR codes (a database read or a drawing each), and opening a WebSocket (a
/// `hello` each). Pages and assets are served from memory and not counted.
/// Over budget: 429 `rate_limited`, try again in a second.
async fn rate_limit(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let opens_socket = path == "/ws";
    if !opens_socket && !path.starts_with("/api/") && !path.ends_with("/qr.svg") {
        return next.run(request).await;
    }
    let Some(ConnectInfo(PeerAddr(peer))) =
        request.extensions().get::<ConnectInfo<PeerAddr>>().copied()
    else {
        return next.run(request).await;
    };
    let ip = match forwarded::client_ip(peer, request.headers(), &shared.config.trusted_proxies) {
        Ok(ip) => ip,
        Err(e) => return ApiError::bad_request(e.to_string()).into_response(),
    };
    let now = std::time::Instant::now();
    let allowed = if opens_socket {
        shared.limits.ws_open(ip, now)
    } else {
        shared.limits.http_request(ip, now)
    };
    if allowed {
        return next.run(request).await;
    }
    let mut response = ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "rate_limited",
        "too many requests from your address: try again in a second",
    )
    .into_response();
    response.headers_mut().insert(
        axum::http::header::RETRY_AFTER,
        axum::http::HeaderValue::from_static("1"),
    );
    response
}

/// An API refusal: the status and `{"error": {"code", "message"}}`. The one
/// kind every route of the port answers with (the scores here, the modes'
/// reads in [`super::modes_api`]), so one fault gets one answer.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// 404 with its own `code` (`player_not_found`, `no_such_day`, …).
    pub(crate) fn not_found(code: &'static str, message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::NOT_FOUND, code, message)
    }

    /// 503: the database does not answer (past its deadline) or refuses.
    fn database_unavailable() -> Self {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "database_unavailable",
            "the scores cannot be read right now (the database does not answer); \
             try again in a moment",
        )
    }

    /// A failed read of `what` (`"the scores"`, `"this match"`): 503
    /// `database_unavailable` when the database is away, else 500
    /// `internal`; logged either way, never shown to the client.
    pub(crate) fn database(e: &crate::db::DbError, what: &str) -> Self {
        if e.is_unavailable() {
            tracing::warn!(error = %e, "{what} unreadable: the database is away");
            return ApiError::database_unavailable();
        }
        tracing::error!(error = %e, "{what} could not be read");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            format!("the server could not read {what}; try again"),
        )
    }
}

async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        "there is nothing at this address",
    )
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this address only answers GET",
    )
}

impl From<BoardError> for ApiError {
    fn from(e: BoardError) -> Self {
        match e {
            BoardError::PlayerNotFound(_) => ApiError::not_found("player_not_found", e.to_string()),
            BoardError::Db(e) => ApiError::database(&e, "the scores"),
        }
    }
}

/// The daily's, runs' and challenges' reads.
impl From<crate::db::DbError> for ApiError {
    fn from(e: crate::db::DbError) -> Self {
        ApiError::database(&e, "its database")
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
        let mut response = (self.status, Json(body)).into_response();
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from_static("5"),
            );
        }
        response
    }
}

/// Reads `metric`, `period`, `limit` and `around`; an empty value means the
/// default, anything else unknown is refused. Other parameters are ignored.
pub(crate) fn parse_board_query(params: &HashMap<String, String>) -> Result<BoardQuery, ApiError> {
    let given = |name: &str| params.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
    let mut query = BoardQuery::default();
    if let Some(metric) = given("metric") {
        query.metric = metric.parse().map_err(|_| {
            ApiError::bad_request(format!(
                "metric must be rating, wins, rounds or fastest, not {metric:?}"
            ))
        })?;
    }
    if let Some(period) = given("period") {
        query.period = period.parse().map_err(|_| {
            ApiError::bad_request(format!(
                "period must be all, month, week or day, not {period:?}"
            ))
        })?;
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
        if around.chars().count() > MAX_NAME_CHARS {
            return Err(ApiError::bad_request(format!(
                "around must be a player's name (at most {MAX_NAME_CHARS} characters)"
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
    // The rejection's own text quotes the query; say what is wrong instead.
    let Query(params) = params.map_err(|_| {
        ApiError::bad_request("the query string is not valid (percent-encoding or UTF-8)")
    })?;
    let query = parse_board_query(&params)?;
    let board = shared
        .boards
        .board(
            &shared.db,
            &query,
            shared.config.ranking(),
            periods::now_ms(),
            shared.recorder.commits(),
        )
        .await?;
    Ok(Json(board))
}

/// Body of `GET /api/players/{name}`: the profile of rated play, then the
/// player's challenges and runs.
#[derive(Debug, Serialize)]
struct PlayerPage {
    #[serde(flatten)]
    profile: leaderboard::Profile,
    #[serde(flatten)]
    play: super::modes_api::ProfilePlay,
}

async fn get_player(
    State(shared): State<Arc<Shared>>,
    name: Result<Path<String>, PathRejection>,
) -> Result<Json<PlayerPage>, ApiError> {
    let Path(name) =
        name.map_err(|_| ApiError::bad_request("the name in the path is not valid UTF-8"))?;
    // Not echoed back: it could be anything, of any length.
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(ApiError::bad_request(format!(
            "a player's name has at most {MAX_NAME_CHARS} characters"
        )));
    }
    let profile = leaderboard::profile(&shared.db, &name, shared.config.ranking()).await?;
    let play = super::modes_api::profile_play(&shared.db, profile.player)
        .await
        .map_err(BoardError::Db)?;
    Ok(Json(PlayerPage { profile, play }))
}

/// `GET /api/matches/{id}`: the match's recap. An id that is no UUID is a
/// 400, an unknown one a 404; neither is quoted back.
async fn get_match(
    State(shared): State<Arc<Shared>>,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<MatchRecap>, ApiError> {
    let Path(id) = id.map_err(|_| ApiError::bad_request("the match id is not valid UTF-8"))?;
    let id = uuid::Uuid::try_parse(&id).map_err(|_| {
        ApiError::bad_request("a match id is a UUID (as `match_over` and profiles give it)")
    })?;
    Ok(Json(recap::recap(&shared.db, id).await?))
}

impl From<RecapError> for ApiError {
    fn from(e: RecapError) -> Self {
        match e {
            RecapError::NotFound => ApiError::not_found("match_not_found", "no match has this id"),
            RecapError::Db(e) => ApiError::database(&e, "this match"),
            RecapError::Stored(_) => {
                tracing::error!(error = %e, "a recap could not be read");
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "the server could not read this match; try again",
                )
            }
        }
    }
}

/// Body of `GET /healthz`.
#[derive(Debug, Serialize)]
struct Health {
    /// Always "ok": the process answers (liveness; whether the database
    /// does is `/readyz`'s question).
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

/// `GET /metrics`: Prometheus text format, version 0.0.4.
async fn get_metrics(State(shared): State<Arc<Shared>>) -> Response {
    let (rooms, players) = shared.lobby.counts();
    let snapshot = metrics::Snapshot {
        players,
        rooms,
        recorder: shared.recorder.state(),
        log_lines_dropped: shared.config.log.dropped(),
    };
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        shared.metrics.render(snapshot),
    )
        .into_response()
}

/// Serves only `GET /metrics` on `listener` (`--metrics-listen`, loopback
/// by default: never the main port) until the server stops.
pub(crate) async fn serve_metrics(listener: tokio::net::TcpListener, shared: Arc<Shared>) {
    let stop = shared.disconnect.clone();
    let router = Router::new()
        .route("/metrics", get(get_metrics))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(shared);
    if let Err(e) = axum::serve(listener, router)
        .with_graceful_shutdown(stop.cancelled_owned())
        .await
    {
        tracing::error!(error = %e, "the metrics listener failed");
    }
}

/// Folds the histograms' samples now and then, so they cannot pile up
/// while nobody scrapes.
pub(crate) async fn metrics_upkeep(shared: Arc<Shared>) {
    let mut every = tokio::time::interval(metrics::UPKEEP_EVERY);
    loop {
        tokio::select! {
            () = shared.disconnect.cancelled() => return,
            _ = every.tick() => shared.metrics.upkeep(),
        }
    }
}

/// How long `/readyz` waits for the database to answer.
const READY_PROBE: Duration = Duration::from_secs(2);

/// Body of `GET /readyz`.
#[derive(Debug, Serialize)]
struct Readiness {
    /// "ok" (200) or "degraded" (503).
    status: &'static str,
    /// "ok", or what is wrong and for how long ("unreachable for 12 s:
    /// …", "writes failing for 3 s: …").
    database: String,
    /// Batches of writes waiting in the journal for the database.
    journal: u64,
    /// Why the journal cannot be written (a full disk), if it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    journal_error: Option<String>,
    /// The journal reached its bound: new matches are refused.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    journal_full: bool,
}

/// Readiness: the database answers now, the recorder's writes reach it,
/// and the journal can be written; 503 with the reason otherwise.
async fn readyz(State(shared): State<Arc<Shared>>) -> Response {
    let state = shared.recorder.state();
    match tokio::time::timeout(READY_PROBE, shared.db.ping()).await {
        Ok(Ok(())) => state.probe_up(),
        Ok(Err(e)) => state.probe_down(&e),
        Err(_) => state.probe_down(&format!("no answer within {} s", READY_PROBE.as_secs())),
    }
    let unreachable = state.probe_outage();
    let failing = state.database_outage();
    // Counted from the first sign of trouble, a failed write or probe.
    let since = unreachable.iter().chain(&failing).map(|o| o.since).min();
    let secs = since.map_or(0, |since| since.elapsed().as_secs());
    let database = match (&unreachable, &failing) {
        (Some(o), _) => format!("unreachable for {secs} s: {}", o.error),
        (None, Some(o)) => format!("writes failing for {secs} s: {}", o.error),
        (None, None) => "ok".to_owned(),
    };
    let journal_error = state.journal_outage().map(|o| {
        format!(
            "cannot write for {} s: {}",
            o.since.elapsed().as_secs(),
            o.error
        )
    });
    let ready = unreachable.is_none() && failing.is_none() && journal_error.is_none();
    let body = Readiness {
        status: if ready { "ok" } else { "degraded" },
        database,
        journal: state.journal_batches.load(Ordering::Relaxed),
        journal_error,
        journal_full: state.journal_full.load(Ordering::Relaxed),
    };
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(body)).into_response()
}

async fn upgrade(State(shared): State<Arc<Shared>>, mut request: Request) -> Response {
    let Some(ws) = Upgrade::from_request(&mut request) else {
        return ApiError::new(
            StatusCode::UPGRADE_REQUIRED,
            "upgrade_required",
            "/ws is the game's WebSocket: connect with a WebSocket client",
        )
        .into_response();
    };
    let Some(ConnectInfo(PeerAddr(peer))) =
        request.extensions().get::<ConnectInfo<PeerAddr>>().copied()
    else {
        return ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "the server lost track of this connection",
        )
        .into_response();
    };
    let headers = request.headers();
    let config = &shared.config;
    if !ws_upgrade::origin_allowed(headers, &config.allowed_origins) {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden_origin",
            "pages of other sites may not open this server's WebSocket (see --allowed-origins)",
        )
        .into_response();
    }
    let trusted = &config.trusted_proxies;
    let client_ip = match forwarded::client_ip(peer, headers, trusted) {
        Ok(ip) => ip,
        Err(e) => return ApiError::bad_request(e.to_string()).into_response(),
    };
    // A direct client was counted when its TCP connection was accepted; a
    // proxy's connections are counted here, by the client it speaks for.
    let slot = if forwarded::is_trusted(peer.ip(), trusted) {
        match shared.limits.connections.acquire(client_ip) {
            Some(slot) => Some(slot),
            None => {
                return ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    "too_many_connections",
                    "too many connections from your address",
                )
                .into_response()
            }
        }
    } else {
        None
    };
    let Some(place) = shared.sockets.admit() else {
        return ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "server_full",
            "the server is full: try again in a while",
        )
        .into_response();
    };
    let limits = SocketLimits {
        max_frame_bytes: config.max_frame_bytes,
        max_write_buffer: config.max_write_buffer,
        frame_burst: config.frame_burst,
        frame_refill_per_sec: config.frame_refill_per_sec,
        max_frame_before_hello: config.max_frame_before_hello as u64,
    };
    let welcomed = Arc::new(AtomicBool::new(false));
    let tracker = shared.tracker.clone();
    ws.accept(
        limits,
        welcomed.clone(),
        &tracker,
        move |socket| async move {
            transport::serve(socket, shared, client_ip, welcomed).await;
            drop(slot);
            drop(place);
        },
    )
}
