//! The heartbeat: every `node timeout / 5` a node refreshes its row,
//! removes dead nodes (any live node may; the deletes are idempotent),
//! publishes the listing entries of its rooms that changed, and reads the
//! other nodes' public rooms for `list_rooms`.
//!
//! A node judges others dead only once its own heartbeats have gone
//! through, without a gap, for a whole node timeout ([`Contact`]): after
//! the database was away for longer than the timeout, every heartbeat in
//! it is old, and the first node back must not take the others — just as
//! alive, and about to beat — for dead. Times are the database's `now()`,
//! so the nodes' clocks may disagree.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::MissedTickBehavior;

use super::{Cluster, RemoteRoom, ANNOUNCEMENT_MEMORY, SEAT_MEMORY};
use crate::db::directory::Published;
use crate::db::scores::Write;
use crate::rooms::lobby::Lobby;
use crate::scores::recorder::Recorder;

/// Listing entries as last written: code → JSON (`None`: private).
type PublishedMap = HashMap<String, Option<String>>;

/// How long this node's heartbeats have gone through without a gap, in
/// the database's time (seconds).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(super) struct Contact {
    /// The first heartbeat of the current run without a gap.
    since: Option<f64>,
    /// The last heartbeat that went through.
    last: Option<f64>,
}

impl Contact {
    /// A heartbeat went through at `now`; one more than `timeout` after
    /// the last starts a new run (the node was as good as dead meanwhile).
    pub(super) fn beat(&mut self, now: f64, timeout: Duration) {
        let timeout = timeout.as_secs_f64();
        match (self.since, self.last) {
            (Some(_), Some(last)) if now - last <= timeout => {}
            _ => self.since = Some(now),
        }
        self.last = Some(now);
    }

    /// A heartbeat failed: the run is over.
    pub(super) fn lost(&mut self) {
        *self = Contact::default();
    }

    /// Whether this node has been in touch for a whole `timeout`: every
    /// live node has had the time to beat since, so an old heartbeat now
    /// means a dead node.
    pub(super) fn may_judge(&self, timeout: Duration) -> bool {
        match (self.since, self.last) {
            (Some(since), Some(last)) => last - since >= timeout.as_secs_f64(),
            _ => false,
        }
    }
}

/// Beats until the node leaves.
pub(super) async fn run(cluster: Arc<Cluster>, lobby: Arc<Lobby>, recorder: Recorder) {
    let mut published = PublishedMap::new();
    let mut contact = Contact::default();
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
        beat(&cluster, &lobby, &recorder, &mut published, &mut contact).await;
    }
}

async fn beat(
    cluster: &Cluster,
    lobby: &Lobby,
    recorder: &Recorder,
    published: &mut PublishedMap,
    contact: &mut Contact,
) {
    let directory = &cluster.directory;
    let timeout = cluster.node_timeout;
    let touched = touch(cluster, lobby, published, contact).await;
    let judging = contact.may_judge(timeout);
    cluster.judging.store(judging, Ordering::Relaxed);
    if !touched {
        return;
    }
    if judging {
        match directory.reap(SEAT_MEMORY, ANNOUNCEMENT_MEMORY).await {
            Ok(reaped) if !reaped.nodes.is_empty() => {
                tracing::info!(dead = ?reaped.nodes, "dead nodes removed from the directory");
                abandon(recorder, &reaped.matches).await;
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "removing dead nodes failed"),
        }
    }
    cluster.sweep_budgets().await;
    publish(cluster, lobby, published).await;
    let asked = std::time::Instant::now();
    match directory.remote_public_rooms().await {
        Ok(rows) => {
            // Counted from before the question: a room leaves the listing
            // a little early rather than late.
            let rooms: Vec<RemoteRoom> = rows
                .iter()
                .filter_map(|(json, age)| {
                    let age = Duration::try_from_secs_f64(age.max(0.0)).ok()?;
                    Some(RemoteRoom {
                        summary: serde_json::from_str(json).ok()?,
                        until: asked + timeout.checked_sub(age)?,
                    })
                })
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

/// Records as abandoned the matches in play on nodes just declared dead:
/// nothing will ever finish them (a node killed with nothing in its
/// journal leaves them `playing` otherwise). Through the recorder, the one
/// writer of scores, so a database outage journals them; the write changes
/// only a match still `playing`. A node taken for dead while merely cut
/// off that comes back and finishes one of them records it finished (a
/// finish overrides the abandon).
async fn abandon(recorder: &Recorder, matches: &[uuid::Uuid]) {
    if matches.is_empty() {
        return;
    }
    let at_ms = krypto_core::periods::now_ms();
    let writes = matches
        .iter()
        .map(|&match_id| Write::AbandonMatch { match_id, at_ms })
        .collect();
    match recorder.submit(writes).await {
        Ok(()) => tracing::warn!(
            matches = matches.len(),
            "matches in play on dead nodes recorded as abandoned"
        ),
        Err(e) => {
            tracing::error!(error = %e, ?matches, "matches of dead nodes not recorded as abandoned")
        }
    }
}

/// Refreshes this node's heartbeat (registering again if the others took
/// it for dead); false when the database could not be reached.
async fn touch(
    cluster: &Cluster,
    lobby: &Lobby,
    published: &mut PublishedMap,
    contact: &mut Contact,
) -> bool {
    let timeout = cluster.node_timeout;
    let draining = cluster.draining.load(Ordering::Relaxed);
    match cluster.directory.heartbeat(draining).await {
        Ok(Some(now)) => {
            contact.beat(now, timeout);
            true
        }
        Ok(None) => {
            // The others took this node for dead (it was cut off or paused
            // for longer than the timeout) and deleted its rows.
            tracing::warn!(node = %cluster.node, "this node was taken for dead: registering again");
            published.clear();
            contact.lost();
            match rejoin(cluster, lobby).await {
                Ok(now) => {
                    cluster.rejoins.increment(1);
                    contact.beat(now, timeout);
                    true
                }
                Err(e) => {
                    tracing::warn!(error = %e, "registering again failed");
                    false
                }
            }
        }
        Err(e) => {
            if contact.last.is_some() {
                tracing::warn!(error = %e, "heartbeat failed");
            } else {
                tracing::debug!(error = %e, "heartbeat failed again");
            }
            contact.lost();
            false
        }
    }
}

/// Registers the node again with every room and seat it holds; returns
/// the database's time of it.
async fn rejoin(cluster: &Cluster, lobby: &Lobby) -> Result<f64, crate::db::DbError> {
    let now = cluster.directory.register(&cluster.public_url).await?;
    let (rooms, seats) = lobby.snapshot();
    let seats: Vec<(i64, String)> = seats.into_iter().map(|(p, c)| (p.0, c)).collect();
    let (lost, moved) = cluster.directory.republish(&rooms, &seats).await?;
    if !lost.is_empty() {
        tracing::error!(
            ?lost,
            "rooms whose codes another node took meanwhile: reachable only by their members"
        );
    }
    // Players seated on another node since: their seat here is stale (they
    // are held in its room as disconnected until the seat hold ends) and
    // must not bring them back here, nor count as a seat of theirs.
    for (player, code) in moved {
        tracing::info!(player, room = %code, "seat dropped: the player moved to another node meanwhile");
        lobby.unseat(krypto_core::protocol::PlayerId(player), &code);
    }
    Ok(now)
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

#[cfg(test)]
mod tests {
    use super::*;

    const TIMEOUT: Duration = Duration::from_secs(5);

    #[test]
    fn a_node_judges_others_only_after_a_whole_timeout_in_touch() {
        let mut contact = Contact::default();
        assert!(!contact.may_judge(TIMEOUT));
        for now in [100.0, 101.0, 102.0, 103.0, 104.0] {
            contact.beat(now, TIMEOUT);
            assert!(!contact.may_judge(TIMEOUT), "{now}");
        }
        contact.beat(105.0, TIMEOUT);
        assert!(contact.may_judge(TIMEOUT));
    }

    #[test]
    fn a_failed_heartbeat_or_a_long_gap_starts_the_wait_again() {
        let mut contact = Contact::default();
        for now in 0..=6 {
            contact.beat(f64::from(now), TIMEOUT);
        }
        assert!(contact.may_judge(TIMEOUT));
        // The database was away for 15 s: back, the node waits again.
        contact.lost();
        contact.beat(21.0, TIMEOUT);
        assert!(!contact.may_judge(TIMEOUT));
        // A heartbeat that hung longer than the timeout, without an error.
        for now in 22..=27 {
            contact.beat(f64::from(now), TIMEOUT);
        }
        assert!(contact.may_judge(TIMEOUT));
        contact.beat(40.0, TIMEOUT);
        assert!(!contact.may_judge(TIMEOUT));
    }
}
