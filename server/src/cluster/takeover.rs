//! One player, one session, across nodes: every `hello` on a node of a
//! cluster takes a number from a database sequence and announces it with
//! `NOTIFY`; every node `LISTEN`s, and closes its own session of that
//! player if it has a lower number (as a second connection on one node
//! replaces the first). Numbers, not arrival order, decide, so a late
//! notification never closes the newer session.
//!
//! The same connection hears a stopping node say it handed rooms to this
//! one (see `crate::handover`).

use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgListener, PgPoolOptions};

use super::Cluster;
use crate::db::directory::{Directory, HANDOVER_CHANNEL, SESSIONS_CHANNEL};
use crate::db::DbError;
use crate::lobby::Lobby;

/// Listens on the sessions channel over a connection of its own (not one
/// of the pool's, which serve queries).
pub(super) async fn listen(directory: &Directory) -> Result<PgListener, DbError> {
    let options = directory.pool().connect_options();
    let pool = PgPoolOptions::new()
        .max_connections(1)
        .connect_lazy_with((*options).clone());
    let mut listener = PgListener::connect_with(&pool).await?;
    listener
        .listen_all([SESSIONS_CHANNEL, HANDOVER_CHANNEL])
        .await?;
    Ok(listener)
}

/// Reads announcements until the node leaves. A broken connection is
/// re-opened by the listener itself (announcements sent meanwhile are
/// lost: those sessions are not replaced).
pub(super) async fn run(cluster: Arc<Cluster>, lobby: Arc<Lobby>, mut listener: PgListener) {
    loop {
        tokio::select! {
            () = cluster.stopped.cancelled() => return,
            next = listener.recv() => match next {
                Ok(notification) if notification.channel() == HANDOVER_CHANNEL => {
                    if notification.payload() == cluster.node.to_string() {
                        cluster.want_claims();
                    }
                }
                Ok(notification) => cluster.taken_over(&lobby, notification.payload()),
                Err(e) => {
                    tracing::warn!(error = %e, "session announcements interrupted");
                    tokio::select! {
                        () = cluster.stopped.cancelled() => return,
                        () = tokio::time::sleep(Duration::from_secs(1)) => {}
                    }
                }
            }
        }
    }
}
