//! The krypto game server: one tokio process serving HTTP and the game's
//! WebSocket on one port, with players and scores in SQLite or PostgreSQL.
//!
//! A map of the sections, from the socket inwards. Each folder is one
//! section; a section imports only the sections below it (a test,
//! `server/tests/layout.rs`, keeps it so), and ARCHITECTURE.md at the
//! repository's root says why.
//!
//! - [`edge`]: between a socket and a session. The listener takes a
//!   connection permit and the address's share before `accept`; HTTP/1.1
//!   with the header-read timeout; the `Host` check; the routes (`/ws`,
//!   `/healthz`, the API; `/metrics` on a port of its own) and their JSON
//!   errors; the WebSocket handshake
//!   onto a socket whose every frame is metered; one task per WebSocket
//!   (the one place deciding which errors close a connection); the
//!   per-address and per-player budgets; the embedded browser client.
//! - `session`: `hello` (who a connection is: names, tokens) and the
//!   dispatch of a connection's requests, with no socket in it.
//! - `modes` and `fair_play`: the daily Krypto, challenges and solo runs
//!   beside the rooms; the signals that keep solvers off the public boards.
//! - [`cluster`]: with `--public-url`, one node of many on one PostgreSQL:
//!   the shared directory of rooms and seats, redirects, heartbeats,
//!   rooms taken over from a dead node.
//! - [`config`]: every limit and timing, read once at the start.
//! - [`rooms`]: the lobby (rooms, seats, spectators, sessions), room codes,
//!   one task per room owning the pure `krypto_core::room::Room` and its
//!   clock, the outbox through which anyone sends to a connection, rooms
//!   kept across a stop. It sees the server only through
//!   `rooms::services::RoomServices`, built once here; rooms brought back
//!   at a start or handed over at a stop: `restart.rs`.
//! - [`scores`]: the recorder (the one writer of scores, committing in
//!   groups, journaling through a database outage), the leaderboards and
//!   their copy in memory.
//! - [`db`]: one store, SQLite or PostgreSQL (chosen by the URL), through
//!   sqlx; tokens and tickets stored only as hashes.
//! - [`ops`]: what the operator sees: metrics, logs, durability.

mod cluster;
pub mod config;
pub mod db;
mod edge;
pub mod fair_play;
mod modes;
pub mod ops;
mod restart;
mod rooms;
pub mod scores;
mod session;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use edge::budgets as limits;
use edge::{http, join_urls, listener, serve};
use ops::{durability, logging, metrics};
use rooms::lobby;
use scores::{board_cache, recorder};
use session::identity;

pub use cluster::{validate_public_url, ClusterError};
pub use config::{parse_origin, Config, DealerFactory, FairPlayFlags, LogFormat};
/// Tokens as `hello` hands them out and the database keeps them (for
/// `migrate-db` tests and tools that seed players).
pub use db::tokens::{new_token, token_hash};
pub use db::{Db, DbError};
pub use join_urls::banner_lines;
pub use ops::metrics::{MetricsAddress, DEFAULT_LISTEN as DEFAULT_METRICS_LISTEN};
pub use rooms::clock::ManualClock;
pub use rooms::wall_clock::WallClock;

/// What every connection and room task shares.
#[derive(Debug)]
pub(crate) struct Shared {
    /// Limits and timings.
    pub(crate) config: Arc<Config>,
    /// The database, for reads and identities.
    pub(crate) db: Db,
    /// The one writer of scores.
    pub(crate) recorder: recorder::Recorder,
    /// Players proved by their token since the start: they can say hello
    /// again while the database is away.
    pub(crate) known_players: identity::KnownPlayers,
    /// Leaderboards served from memory.
    pub(crate) boards: Arc<board_cache::BoardCache>,
    /// Rooms, seats and sessions.
    pub(crate) lobby: Arc<lobby::Lobby>,
    /// This node's membership of a cluster (`--public-url`); `None` for a
    /// single server.
    pub(crate) cluster: Option<Arc<cluster::Cluster>>,
    /// Limits shared by every connection: per address and per player.
    pub(crate) limits: limits::SharedLimits,
    /// Welcomed sockets and how idle they are; the connection permits.
    pub(crate) sockets: Arc<edge::idle::LobbySockets>,
    /// The names `/ws` and `/api` answer for (the `Host` check).
    pub(crate) hosts: edge::hosts::AllowedHosts,
    /// The base addresses friends can use, sent in every `welcome`: the
    /// declared public origins, then the LAN addresses.
    pub(crate) join_urls: Vec<String>,
    /// Those and this machine's loopback addresses: the bases QR codes are
    /// drawn for, the first one when none is asked for.
    pub(crate) own_bases: Arc<[String]>,
    /// Cancelled when the server starts shutting down: it accepts no more
    /// connections, and rooms save their state and stop.
    pub(crate) shutdown: CancellationToken,
    /// Cancelled once the rooms are put away: connections say goodbye.
    pub(crate) disconnect: CancellationToken,
    /// Connection tasks, so shutdown can wait for their goodbyes.
    pub(crate) tracker: TaskTracker,
    /// Room tasks, so shutdown can wait until every room is saved.
    pub(crate) room_tasks: TaskTracker,
    /// What room tasks share: handles to the above, and where they put
    /// their state when the server stops.
    pub(crate) rooms: Arc<rooms::services::RoomServices>,
    /// What `/metrics` shows.
    pub(crate) metrics: metrics::Metrics,
    /// The writes of the daily, challenges and runs, in group commits.
    pub(crate) mode_writes: db::mode_writer::ModeWriter,
    /// The daily's secret and first day, read from the database once.
    pub(crate) daily: modes::daily::DailyKeeper,
    /// The runs of this node's players, for `run_resume`.
    pub(crate) runs: modes::runs::RunsInPlay,
    /// Rated play's answers on their way to the fair-play signals.
    pub(crate) fair_play: fair_play::FairPlay,
}

impl Shared {
    /// The state of a server bound to `bound`, with its database opened and
    /// its recorder started (whose task is returned, to await at the end).
    async fn open(
        config: Config,
        bound: SocketAddr,
    ) -> Result<(Arc<Shared>, tokio::task::JoinHandle<()>), ServerError> {
        if let Some(url) = &config.public_url {
            // Refused before a SQLite file would be created for nothing.
            validate_public_url(url)?;
            if db::Backend::of_url(&config.database_url)? != db::Backend::Postgres {
                return Err(ClusterError::NeedsPostgres.into());
            }
        }
        let fair_play_settings = config.fair_play.settings()?;
        let metrics = metrics::Metrics::new()?;
        let db = Db::open_waiting(&config.database_url, config.database_wait).await?;
        prune_devices(&db, &config).await;
        let cluster = cluster::Cluster::open(
            &db,
            config.public_url.as_deref(),
            config.node_timeout,
            config.limit_window,
            config.database_deadline,
            &metrics,
        )
        .await?;
        let (recorder, recorder_task) = recorder::Recorder::start_reporting(
            &db,
            config.journal_options(),
            durability::Durability::new(metrics.commit_seconds.clone()),
        )
        .await?;
        let (fair_play, rated_play) = fair_play::FairPlay::start(
            db.clone(),
            fair_play_settings,
            recorder.clone(),
            metrics.fair_play.clone(),
            metrics.fair_play_answers.clone(),
            fair_play::queue_for(config.max_connections),
        );
        let lobby = lobby::Lobby::new(
            config.max_rooms,
            config.max_rooms_per_address,
            cluster.as_ref().map(|(c, _)| c.queue()),
        );
        let cluster = cluster.map(|(cluster, pending)| {
            cluster.spawn(lobby.clone(), recorder.clone(), pending);
            cluster
        });
        let room_tasks = TaskTracker::new();
        let shutdown = CancellationToken::new();
        let room_services = Arc::new(rooms::services::RoomServices {
            settings: config.room_task_settings(),
            lobby: lobby.clone(),
            recorder: recorder.clone(),
            saved_rooms: rooms::saving::SavedRooms::default(),
            verdict_seconds: metrics.verdict_seconds.clone(),
            shutdown: shutdown.clone(),
            tasks: room_tasks.clone(),
            rated_play,
            bots: rooms::bots::BotRoster::default(),
            solves: rooms::solves::RoomSolves::default(),
        });
        let public_bases =
            join_urls::public_bases(bound, &config.allowed_origins, config.public_url.as_deref());
        let mode_writes = db::mode_writer::ModeWriter::start(db.clone());
        let shared = Arc::new(Shared {
            recorder,
            known_players: identity::KnownPlayers::default(),
            boards: board_cache::BoardCache::new(),
            lobby,
            cluster,
            limits: limits::SharedLimits::new(&config),
            sockets: Arc::new(edge::idle::LobbySockets::new(
                config.max_connections,
                config.reserved_connections,
            )),
            hosts: edge::hosts::AllowedHosts::new(
                &config.allowed_origins,
                config.public_url.as_deref(),
                &config.allowed_hosts,
            ),
            own_bases: public_bases
                .iter()
                .cloned()
                .chain(join_urls::loopback_bases(bound.port()))
                .collect(),
            join_urls: public_bases,
            config: Arc::new(config),
            db,
            shutdown,
            disconnect: CancellationToken::new(),
            tracker: TaskTracker::new(),
            room_tasks,
            rooms: room_services,
            metrics,
            mode_writes,
            daily: modes::daily::DailyKeeper::default(),
            runs: modes::runs::RunsInPlay::default(),
            fair_play,
        });
        let clock = shared.config.wall_clock.clone();
        scores::retention::spawn(
            shared.db.clone(),
            shared.config.retention.settings(),
            move || clock.now_ms(),
            shared.shutdown.clone(),
        );
        shared.restore_saved_rooms().await?;
        if let Some(cluster) = shared.cluster.clone() {
            let claimer = shared.clone();
            tokio::spawn(async move {
                while cluster.claims_wanted().await {
                    claimer.claim_saved_rooms().await;
                }
            });
        }
        Ok((shared, recorder_task))
    }
}

/// Revokes the devices unused past the expiry (`--device-expiry-days`);
/// a failure is logged, and each such device is still refused at its next
/// hello.
async fn prune_devices(db: &Db, config: &Config) {
    let Some(ttl) = config.device_expiry() else {
        return;
    };
    let now = db::tokens::unix_ms(std::time::SystemTime::now());
    let cutoff = now.saturating_sub(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX));
    match db.prune_devices(cutoff).await {
        Ok(0) => {}
        Ok(pruned) => tracing::info!(pruned, "devices unused too long revoked"),
        Err(e) => tracing::warn!(error = %e, "expired devices not pruned"),
    }
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// Opening or migrating the database failed.
    #[error(transparent)]
    Db(#[from] DbError),
    /// The fair-play thresholds make no sense (`--fair-play-*`).
    #[error("fair-play thresholds: {0}")]
    FairPlay(#[from] krypto_core::fair_play::ThresholdError),
    /// The listener failed.
    #[error("serving: {0}")]
    Io(#[from] std::io::Error),
    /// Joining the cluster of nodes failed.
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    /// The metrics' histograms could not be set up.
    #[error("metrics: {0}")]
    Metrics(#[from] metrics_exporter_prometheus::BuildError),
    /// `--metrics-listen` could not be bound.
    #[error("cannot listen for metrics on {addr}: {source}")]
    MetricsListen {
        /// The address asked for.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The recorder could not start (its journal could not be read).
    #[error(transparent)]
    Recorder(#[from] recorder::StartError),
    /// The score recorder (the only writer of results) ended on its own
    /// or panicked: the server stopped rather than play on unrecorded.
    #[error("the score recorder stopped: {0}")]
    RecorderStopped(String),
}

/// Waits for the recorder's task to end. Before shutdown that is fatal: it
/// is logged, and the server is told to stop (its rooms are saved, so a
/// restart carries on). A panic is an error whenever it happens.
async fn watch_recorder(
    task: tokio::task::JoinHandle<()>,
    shutdown: CancellationToken,
) -> Result<(), ServerError> {
    let ended = task.await;
    let why = match ended {
        Ok(()) if shutdown.is_cancelled() => return Ok(()),
        Ok(()) => "it ended while the server was running".to_owned(),
        Err(e) => e.to_string(),
    };
    tracing::error!(why = %why, "the score recorder stopped: stopping the server");
    shutdown.cancel();
    Err(ServerError::RecorderStopped(why))
}

/// Restores the rooms the last graceful stop saved, serves on `listener`
/// until `shutdown` resolves, then shuts down gracefully: stop accepting,
/// save every room and put it away (handed to another node of a cluster,
/// whose address each member is sent, or stored for the next start), close
/// every WebSocket with 1012 (the server is restarting), close the
/// database.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let bound = listener.local_addr()?;
    let (shared, recorder_task) = Shared::open(config, bound).await?;
    let recorder_task = tokio::spawn(watch_recorder(recorder_task, shared.shutdown.clone()));
    let listener = listener::CappedListener::new(
        listener,
        shared.config.max_connections,
        shared.limits.connections.clone(),
        shared.config.trusted_proxies.clone().into(),
    );
    let token = shared.shutdown.clone();
    tokio::spawn(async move {
        shutdown.await;
        token.cancel();
    });
    tokio::spawn(http::metrics_upkeep(shared.clone()));
    tokio::spawn(logging::report_dropped(
        shared.config.log.clone(),
        shared.disconnect.clone(),
    ));
    let asked = shared.config.metrics_listen;
    let addr = asked.unwrap_or(metrics::DEFAULT_LISTEN);
    match TcpListener::bind(addr).await {
        Ok(metrics_listener) => {
            let bound = metrics_listener.local_addr()?;
            shared.config.metrics_address.set(bound);
            tracing::info!(address = %bound, "serving /metrics");
            tokio::spawn(http::serve_metrics(metrics_listener, shared.clone()));
        }
        Err(source) if asked.is_some() => {
            return Err(ServerError::MetricsListen { addr, source });
        }
        Err(e) => tracing::warn!(
            address = %addr,
            error = %e,
            "cannot serve /metrics on its default address: running without metrics \
             (choose one with --metrics-listen)"
        ),
    }
    serve::serve(
        listener,
        http::router(shared.clone()),
        shared.config.handshake_timeout,
        shared.shutdown.clone(),
        shared.tracker.clone(),
    )
    .await;
    tracing::info!("shutting down: saving rooms");
    if let Some(cluster) = &shared.cluster {
        cluster.drain().await;
    }
    shared.room_tasks.close();
    if tokio::time::timeout(shared.config.shutdown_timeout, shared.room_tasks.wait())
        .await
        .is_err()
    {
        tracing::warn!("some rooms did not stop in time");
    }
    // Everything the rooms recorded is committed before they are handed
    // on: their new node records the rest of their matches.
    shared.recorder.close().await;
    let recorded = recorder_task
        .await
        .unwrap_or_else(|e| Err(ServerError::RecorderStopped(e.to_string())));
    shared.put_saved_rooms_away().await;
    tracing::info!("closing connections");
    shared.disconnect.cancel();
    shared.tracker.close();
    if tokio::time::timeout(shared.config.shutdown_timeout, shared.tracker.wait())
        .await
        .is_err()
    {
        tracing::warn!("some connections did not finish in time");
    }
    if let Some(cluster) = &shared.cluster {
        cluster.stop().await;
    }
    shared.db.close().await;
    tracing::info!("stopped");
    recorded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_recorder_that_panics_stops_the_server_with_an_error() {
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(async { panic!("the recorder broke") });
        let ended = watch_recorder(task, shutdown.clone()).await;
        assert!(
            matches!(&ended, Err(ServerError::RecorderStopped(why)) if why.contains("panicked")),
            "{ended:?}"
        );
        assert!(shutdown.is_cancelled(), "the server is told to stop");
    }

    #[tokio::test]
    async fn a_recorder_that_ends_before_shutdown_stops_the_server() {
        let shutdown = CancellationToken::new();
        let ended = watch_recorder(tokio::spawn(async {}), shutdown.clone()).await;
        assert!(matches!(ended, Err(ServerError::RecorderStopped(_))));
        assert!(shutdown.is_cancelled());
    }

    #[tokio::test]
    async fn a_recorder_closed_at_shutdown_is_an_orderly_end() {
        let shutdown = CancellationToken::new();
        shutdown.cancel();
        let ended = watch_recorder(tokio::spawn(async {}), shutdown).await;
        assert!(ended.is_ok(), "{ended:?}");
    }
}
