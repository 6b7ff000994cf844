//! One player, one session, across nodes: every `hello` on a node of a
//! cluster takes a number from a database sequence, keeps it in
//! `session_notices` and announces it with `NOTIFY`; every node `LISTEN`s,
//! and closes its own session of that player if it has a lower number (as
//! a second connection on one node replaces the first). Numbers, not
//! arrival order, decide, so a late notification never closes the newer
//! session, and hearing one twice changes nothing.
//!
//! When the `LISTEN` connection breaks (the database restarted), it is
//! opened again with backoff, and the notices sent meanwhile — which no
//! notification will ever bring — are read from the table.
//!
//! The same connection hears a stopping node say it handed rooms to this
//! one (see `crate::rooms::saving`).

use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgListener, PgPoolOptions};

use super::Cluster;
use crate::db::directory::{Announcement, Directory, HANDOVER_CHANNEL, SESSIONS_CHANNEL};
use crate::db::DbError;
use crate::rooms::lobby::Lobby;

/// The first wait before listening again; doubled after each failure.
const RETRY_FIRST: Duration = Duration::from_millis(100);

/// The longest wait between two tries.
const RETRY_MAX: Duration = Duration::from_secs(5);

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

/// Reads announcements until the node leaves.
pub(super) async fn run(cluster: Arc<Cluster>, lobby: Arc<Lobby>, mut listener: PgListener) {
    // The highest session number heard: the notices after it are the ones
    // a broken connection may have missed.
    let mut heard = 0;
    loop {
        let next = tokio::select! {
            () = cluster.stopped.cancelled() => return,
            next = listener.try_recv() => next,
        };
        match next {
            Ok(Some(notification)) if notification.channel() == HANDOVER_CHANNEL => {
                if notification.payload() == cluster.node.to_string() {
                    cluster.want_claims();
                }
            }
            Ok(Some(notification)) => match Announcement::parse(notification.payload()) {
                Some(announced) => {
                    heard = heard.max(announced.seq);
                    cluster.taken_over(&lobby, announced);
                }
                None => tracing::warn!(
                    payload = notification.payload(),
                    "unreadable session announcement"
                ),
            },
            // `Ok(None)`: the connection broke (and may have been opened
            // again already, without its missed notices).
            broken => {
                if let Err(e) = broken {
                    tracing::warn!(error = %e, "session announcements interrupted");
                } else {
                    tracing::warn!("session announcements interrupted: connection lost");
                }
                drop(listener);
                listener = match listen_again(&cluster, &lobby, &mut heard).await {
                    Some(listener) => listener,
                    None => return,
                };
            }
        }
    }
}

/// Listens again, with backoff, then reads the notices missed meanwhile
/// (after listening, so none falls in between); `None` once the node has
/// left.
async fn listen_again(cluster: &Cluster, lobby: &Lobby, heard: &mut i64) -> Option<PgListener> {
    let mut wait = RETRY_FIRST;
    loop {
        tokio::select! {
            () = cluster.stopped.cancelled() => return None,
            () = tokio::time::sleep(wait) => {}
        }
        wait = (wait * 2).min(RETRY_MAX);
        let listener = match listen(&cluster.directory).await {
            Ok(listener) => listener,
            Err(e) => {
                tracing::debug!(error = %e, "listening again failed");
                continue;
            }
        };
        let missed = match cluster.directory.notices_after(*heard).await {
            Ok(missed) => missed,
            Err(e) => {
                tracing::debug!(error = %e, "reading the missed session notices failed");
                continue;
            }
        };
        tracing::info!(
            missed = missed.len(),
            "listening for session announcements again"
        );
        cluster.listen_reconnects.increment(1);
        for announced in missed {
            *heard = (*heard).max(announced.seq);
            cluster.taken_over(lobby, announced);
        }
        // A hand-over to this node may have been missed too.
        cluster.want_claims();
        return Some(listener);
    }
}
