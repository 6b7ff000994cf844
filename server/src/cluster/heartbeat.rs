//! The heartbeat: every `node timeout / 5` a node refreshes its row,
//! removes dead nodes (any live node may; the deletes are idempotent),
//! publishes the listing entries of its rooms that changed, and reads the
//! other nodes' public rooms for `list_rooms`.

use std::collections::HashMap;
use std::sync::Arc;

use krypto_core::protocol::RoomSummary;
use tokio::time::MissedTickBehavior;

use super::{Cluster, SEAT_MEMORY};
use crate::db::directory::Published;
use crate::lobby::Lobby;

/// Listing entries as last written: code → JSON (`None`: private).
type PublishedMap = HashMap<String, Option<String>>;

/// Beats until the node leaves.
pub(super) async fn run(cluster: Arc<Cluster>, lobby: Arc<Lobby>) {
    let mut published = PublishedMap::new();
    let mut interval = tokio::time::interval(cluster.heartbeat_every);
    interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = cluster.stopped.cancelled() => return,
            _ = interval.tick() => {}
        }
        let _beat = cluster.beat.lock().await;
        if cluster.stopped.is_cancelled() {
            return;
        }
        beat(&cluster, &lobby, &mut published).await;
    }
}

async fn beat(cluster: &Cluster, lobby: &Lobby, published: &mut PublishedMap) {
    let directory = &cluster.directory;
    let draining = cluster.draining.load(std::sync::atomic::Ordering::Relaxed);
    match directory.heartbeat(draining).await {
        Ok(true) => {}
        Ok(false) => {
            // The others took this node for dead (it was cut off or paused
            // for longer than the timeout) and deleted its rows.
            tracing::warn!(node = %cluster.node, "this node was taken for dead: registering again");
            published.clear();
            if let Err(e) = rejoin(cluster, lobby).await {
                tracing::warn!(error = %e, "registering again failed");
                return;
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, "heartbeat failed");
            return;
        }
    }
    match directory.reap(SEAT_MEMORY).await {
        Ok(dead) if !dead.is_empty() => {
            tracing::info!(?dead, "dead nodes removed from the directory");
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "removing dead nodes failed"),
    }
    publish(cluster, lobby, published).await;
    match directory.remote_public_rooms().await {
        Ok(rows) => {
            let rooms: Vec<RoomSummary> = rows
                .iter()
                .filter_map(|json| serde_json::from_str(json).ok())
                .collect();
            *cluster
                .remote_rooms
                .lock()
                .unwrap_or_else(|e| e.into_inner()) = Arc::new(rooms);
        }
        Err(e) => tracing::warn!(error = %e, "reading other nodes' rooms failed"),
    }
    cluster.prune_announcements();
    // Rooms saved for a node that is gone, or for whoever comes next.
    cluster.want_claims();
}

/// Registers the node again with every room and seat it holds.
async fn rejoin(cluster: &Cluster, lobby: &Lobby) -> Result<(), crate::db::DbError> {
    cluster.directory.register(&cluster.public_url).await?;
    let (rooms, seats) = lobby.snapshot();
    let seats: Vec<(i64, String)> = seats.into_iter().map(|(p, c)| (p.0, c)).collect();
    let lost = cluster.directory.republish(&rooms, &seats).await?;
    if !lost.is_empty() {
        tracing::error!(
            ?lost,
            "rooms whose codes another node took meanwhile: reachable only by their members"
        );
    }
    Ok(())
}

/// Writes the listing entries that changed since the last heartbeat.
async fn publish(cluster: &Cluster, lobby: &Lobby, published: &mut PublishedMap) {
    let mut now = PublishedMap::new();
    let mut changed = Vec::new();
    for summary in lobby.listing() {
        let json = if summary.settings.public {
            serde_json::to_string(&summary).ok()
        } else {
            None
        };
        if published.get(&summary.code) != Some(&json) {
            changed.push(Published {
                code: summary.code.clone(),
                summary: json.clone(),
            });
        }
        now.insert(summary.code, json);
    }
    match cluster.directory.publish(&changed).await {
        Ok(()) => *published = now,
        Err(e) => tracing::warn!(error = %e, "publishing rooms failed"),
    }
}
