//! `devices` and `revoke_device`, and telling a player's devices when a
//! new one signs in (`device_added`).
//!
//! A player has one live connection at a time (a newer `hello` replaces the
//! older connection, on every node of a cluster), so a revoked device has no
//! connection to close unless it is the asking one. A device that was not
//! connected when another signed in is told at its next `hello`: every
//! device added since it last said hello, after its `welcome`.

use krypto_core::protocol::{DeviceInfo, ErrorCode, PlayerId, ServerEnvelope, ServerMessage};

use super::{Session, Welcomed};
use crate::db::devices::{DeviceRow, Touched, TOUCH_EVERY_MS};
use crate::rooms::outbox::{close, Outbox};
use crate::session::identity::unix_ms;

/// The close reason of a connection whose device was revoked.
const REVOKED: &str = "this device was revoked";

/// The wire form of a device row.
fn info(row: &DeviceRow, own_hash: Option<&str>) -> DeviceInfo {
    DeviceInfo {
        id: row.id().to_owned(),
        label: row.label.clone(),
        created_ms: row.created_ms,
        last_used_ms: row.last_used_ms,
        this_device: own_hash == Some(row.token_hash.as_str()),
    }
}

impl Session {
    /// Answers `devices`.
    pub(super) async fn devices(&self, id: Option<String>, welcomed: &Welcomed) {
        match self.shared.db.devices(welcomed.player).await {
            Ok(rows) => self.reply(id, list(&rows, welcomed.token_hash.as_deref())),
            Err(e) => {
                tracing::warn!(error = %e, "devices not listed");
                self.error(
                    id,
                    ErrorCode::Internal,
                    "the server could not read your devices; try again",
                );
            }
        }
    }

    /// Answers `revoke_device`: the device's token stops working at once
    /// (on this node's memory of proven players too); revoking this very
    /// device answers, then closes the connection.
    pub(super) async fn revoke_device(
        &self,
        id: Option<String>,
        welcomed: &Welcomed,
        device: &str,
    ) {
        let revoked = match self.shared.db.revoke_device(welcomed.player, device).await {
            Ok(Some(hash)) => hash,
            Ok(None) => {
                return self.error(
                    id,
                    ErrorCode::DeviceNotFound,
                    "none of your devices has that id",
                )
            }
            Err(e) => {
                tracing::warn!(error = %e, "a device was not revoked");
                return self.error(
                    id,
                    ErrorCode::Internal,
                    "the server could not revoke the device; try again",
                );
            }
        };
        self.shared.known_players.forget(&revoked);
        tracing::info!(player = welcomed.player.0, "a device was revoked");
        self.devices(id, welcomed).await;
        if welcomed.token_hash.as_deref() == Some(revoked.as_str()) {
            self.outbox.close(close::NORMAL, REVOKED);
        }
    }

    /// Tells this device, just welcomed, of the devices added since it
    /// last said hello (asked only when that is at least a minute ago: the
    /// last use is recorded to the minute).
    pub(super) async fn tell_devices_added(&self, player: PlayerId, device: &Touched, own: &str) {
        let Some(since) = device.previous_use_ms else {
            return;
        };
        if unix_ms(std::time::SystemTime::now()).saturating_sub(since) < TOUCH_EVERY_MS {
            return;
        }
        let rows = match self.shared.db.devices(player).await {
            Ok(rows) => rows,
            Err(e) => {
                tracing::warn!(error = %e, "new devices not told");
                return;
            }
        };
        for row in rows
            .iter()
            .filter(|r| r.created_ms > since && r.token_hash != own)
        {
            self.outbox
                .send(&ServerEnvelope::new(ServerMessage::DeviceAdded {
                    device: info(row, None),
                }));
        }
    }
}

/// The `devices` reply.
fn list(rows: &[DeviceRow], own_hash: Option<&str>) -> ServerMessage {
    ServerMessage::Devices {
        devices: rows.iter().map(|r| info(r, own_hash)).collect(),
    }
}

/// Ends the connection a newer `hello` of the same player replaces; a new
/// device tells it first who signed in (read before the close).
pub(super) fn replace(old: &Outbox, new_device: Option<DeviceInfo>) {
    const REPLACED: &str = "replaced by a newer connection";
    match new_device {
        Some(device) => {
            old.send(&ServerEnvelope::new(ServerMessage::DeviceAdded { device }));
            old.close(close::NORMAL, REPLACED);
        }
        None => old.kill(close::NORMAL, REPLACED),
    }
}
