//! The krypto game server: one tokio process serving HTTP and the game's
//! WebSocket on one port, with players and scores in SQLite or PostgreSQL.
//!
//! A map of the modules, from the socket inwards:
//!
//! - [`listener`]: the TCP listener that takes a connection permit before
//!   `accept`, capping open connections.
//! - [`http`]: the routes — `/ws` (upgrade) and `/healthz`.
//! - [`connection`]: one task per WebSocket: frames ↔ typed messages, message
//!   credits, handshake timeout, pings, and the one place deciding which
//!   errors close a connection.
//! - [`client`]: the handle rooms use to send to a connection through its
//!   bounded queue (never blocking; a slow reader is disconnected).
//! - [`identity`]: names, tokens and the `hello` decision.
//! - [`lobby`]: the registry of rooms, seats and sessions.
//! - [`room_task`]: one task per room, owning the pure
//!   `krypto_core::room::Room` and its clock; it records each result and
//!   waits for the commit before announcing it.
//! - [`recorder`]: the one writer of scores, committing rooms' writes in
//!   groups. [`ratings`]: Weng-Lin. [`periods`]: UTC calendar periods.
//! - [`leaderboard`]: leaderboards and profiles for the WebSocket and HTTP.
//! - [`codes`]: room codes. [`limits`]: message credits, code-guess limits.
//! - [`db`]: one store, SQLite or PostgreSQL (chosen by the URL), through
//!   sqlx; batches written in each backend's idiom.
//! - [`config`]: every limit and timing. [`net`]: the join URLs to print.

pub mod client;
pub mod codes;
pub mod config;
pub mod connection;
pub mod db;
pub mod http;
pub mod identity;
pub mod leaderboard;
pub mod limits;
pub mod listener;
pub mod lobby;
pub mod net;
pub mod periods;
pub mod ratings;
pub mod recorder;
pub mod room_task;

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use config::Config;
pub use db::{Db, DbError};

/// What every connection and room task shares.
#[derive(Debug)]
pub struct Shared {
    /// Limits and timings.
    pub config: Arc<Config>,
    /// The database, for reads and identities.
    pub db: Db,
    /// The one writer of scores.
    pub recorder: recorder::Recorder,
    /// Rooms, seats and sessions.
    pub lobby: Arc<lobby::Lobby>,
    /// Cancelled when the server starts shutting down.
    pub shutdown: CancellationToken,
    /// Connection and room tasks, so shutdown can wait for their goodbyes.
    pub tracker: TaskTracker,
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// Opening or migrating the database failed.
    #[error(transparent)]
    Db(#[from] DbError),
    /// The listener failed.
    #[error("serving: {0}")]
    Io(#[from] std::io::Error),
}

/// Serves on `listener` until `shutdown` resolves, then shuts down
/// gracefully: stop accepting, close every WebSocket with 1001, let rooms
/// finish, close the database.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let db = Db::open(&config.database_url).await?;
    let (recorder, recorder_task) = recorder::Recorder::start(&db).await?;
    let shared = Arc::new(Shared {
        recorder: recorder.clone(),
        lobby: lobby::Lobby::new(config.max_rooms),
        config: Arc::new(config),
        db: db.clone(),
        shutdown: CancellationToken::new(),
        tracker: TaskTracker::new(),
    });
    let listener = listener::CappedListener::new(listener, shared.config.max_connections);
    let token = shared.shutdown.clone();
    tokio::spawn(async move {
        shutdown.await;
        token.cancel();
    });
    let app = http::router(shared.clone());
    let served = axum::serve(
        listener,
        app.into_make_service_with_connect_info::<listener::PeerAddr>(),
    )
    .with_graceful_shutdown(shared.shutdown.clone().cancelled_owned())
    .await;
    // Also stop if serving failed on its own.
    shared.shutdown.cancel();
    tracing::info!("shutting down: closing connections and rooms");
    shared.tracker.close();
    if tokio::time::timeout(shared.config.shutdown_timeout, shared.tracker.wait())
        .await
        .is_err()
    {
        tracing::warn!("some connections or rooms did not finish in time");
    }
    recorder.close().await;
    let _ = recorder_task.await;
    db.close().await;
    tracing::info!("stopped");
    served?;
    Ok(())
}
