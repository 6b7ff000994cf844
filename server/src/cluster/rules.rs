//! The single-node rules, cluster-wide: a player seated on another node
//! cannot rename, host or join here, and the code-miss and new-account
//! budgets are counted in the database (`db/postgres/budgets.rs`), so N
//! nodes give one budget, not N.
//!
//! When the database cannot be reached: a rename and a new account are
//! refused (neither could be written anyway), and so is a new room (its
//! code is reserved there); a join is let through on this node's own rule
//! (rooms here keep filling during an outage), and the code-miss budget
//! falls back to this node's own window — rooms on other nodes cannot be
//! found then either, so a guesser can only find this node's rooms, which
//! its window guards.

use std::net::IpAddr;

use krypto_core::protocol::PlayerId;

use super::Cluster;
use crate::db::DbError;

/// The key of an address's room-code misses (the address as `--ipv6-prefix`
/// cuts it).
fn miss_ip(ip: IpAddr) -> String {
    format!("miss_ip:{ip}")
}

/// The key of a player's room-code misses.
fn miss_player(player: PlayerId) -> String {
    format!("miss_player:{}", player.0)
}

/// The key of an address's new accounts.
fn account_ip(ip: IpAddr) -> String {
    format!("account_ip:{ip}")
}

impl Cluster {
    /// The room `player` holds a seat in on another node (seated, or
    /// dropped with the seat held), if any.
    pub(crate) async fn held_seat(&self, player: PlayerId) -> Result<Option<String>, DbError> {
        self.directory.held_seat(player.0).await
    }

    /// Whether `player` at address `ip` (a key) may try a room code: fewer
    /// than `max` misses (0: no limit) by either within the window, on
    /// every node together.
    pub(crate) async fn may_guess(&self, ip: IpAddr, player: PlayerId, max: u32) -> bool {
        if max == 0 {
            return true;
        }
        match self
            .budgets
            .counts(&[miss_ip(ip), miss_player(player)])
            .await
        {
            Ok(counts) => counts.iter().all(|&n| n < i64::from(max)),
            Err(e) => {
                tracing::warn!(error = %e, "shared code-miss budget unreadable; this node's counts decide");
                true
            }
        }
    }

    /// Whether address `ip` (a key) may try a sign-in ticket: wrong ones
    /// are the address's room-code misses.
    pub(crate) async fn may_try_ticket(&self, ip: IpAddr, max: u32) -> bool {
        if max == 0 {
            return true;
        }
        match self.budgets.counts(&[miss_ip(ip)]).await {
            Ok(counts) => counts.iter().all(|&n| n < i64::from(max)),
            Err(e) => {
                tracing::warn!(error = %e, "shared code-miss budget unreadable; this node's counts decide");
                true
            }
        }
    }

    /// Counts a room code (or ticket) that named nothing, against the
    /// address `ip` (a key) and, for a room code, the player.
    pub(crate) async fn missed(&self, ip: IpAddr, player: Option<PlayerId>) {
        let mut keys = vec![miss_ip(ip)];
        keys.extend(player.map(miss_player));
        if let Err(e) = self.budgets.add(&keys).await {
            tracing::warn!(error = %e, "a code miss was counted on this node only");
        }
    }

    /// Whether address `ip` (a key) may create one more account (fewer
    /// than `max` within the window on every node together; 0: no limit);
    /// counts it if so. Refused when the database cannot say.
    pub(crate) async fn may_create_account(&self, ip: IpAddr, max: u32) -> bool {
        if max == 0 {
            return true;
        }
        match self.budgets.take(&account_ip(ip), max).await {
            Ok(allowed) => allowed,
            Err(e) => {
                tracing::warn!(error = %e, "a new account was refused: the shared budget is unreadable");
                false
            }
        }
    }

    /// Deletes budget slices no window reaches any more.
    pub(crate) async fn sweep_budgets(&self) {
        if let Err(e) = self.budgets.sweep().await {
            tracing::warn!(error = %e, "old budget counts not swept");
        }
    }
}
