//! The HTTP side of the single port: the WebSocket upgrade at `/ws` and the
//! health check at `/healthz`.

use std::sync::Arc;

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{ConnectInfo, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;

use crate::connection::{self, SERVER_VERSION};
use crate::listener::PeerAddr;
use crate::Shared;

/// The routes, sharing the server's state.
pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/ws", get(upgrade))
        .route("/healthz", get(healthz))
        .with_state(shared)
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
    ws.max_frame_size(max)
        .max_message_size(max)
        .on_upgrade(move |socket| tracker.track_future(connection::serve(socket, shared, peer)))
        .into_response()
}
