//! The devices a player controls: one row of `player_tokens` per token that
//! signs the player in (migration `0015_devices.sql`), the first token
//! included, with the label the device gave, when it was added and when it
//! was last used.
//!
//! A device is named on the wire by the first [`DEVICE_ID_CHARS`] hex digits
//! of its token's hash: stable, unique for a player in practice (64 bits),
//! and useless for signing in. Revoking the player's first token also
//! overwrites `players.token_hash` (the key the recorder creates players
//! by) with a marker no token hashes to, so it signs nobody in again.
//!
//! Times are Unix milliseconds passed in by the caller.

use krypto_core::protocol::PlayerId;

use super::{on_store, Db, DbError};

/// Hex digits of a token's hash that name its device.
pub const DEVICE_ID_CHARS: usize = 16;

/// `last_used_ms` is written at most this often per device.
pub const TOUCH_EVERY_MS: i64 = 60_000;

/// One of a player's devices.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct DeviceRow {
    /// The SHA-256 of its token, hex.
    pub token_hash: String,
    /// What the device called itself when it signed in.
    pub label: String,
    /// When it was added (Unix ms).
    pub created_ms: i64,
    /// When it last said hello (Unix ms, to the minute).
    pub last_used_ms: i64,
}

impl DeviceRow {
    /// Its id on the wire.
    pub fn id(&self) -> &str {
        self.token_hash.get(..DEVICE_ID_CHARS).unwrap_or("")
    }
}

/// What signing a device in did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Touched {
    /// The device's `last_used_ms` before this hello (`None`: it had no row
    /// yet, as a brand-new device).
    pub previous_use_ms: Option<i64>,
    /// Token hashes of the devices revoked to stay within the cap.
    pub evicted: Vec<String>,
    /// The device had gone unused past the expiry: it was revoked now, and
    /// nothing else was done.
    pub expired: bool,
}

/// How a device signs in: who, with which token, called what, when, and the
/// rules it is held to.
#[derive(Debug, Clone, Copy)]
pub struct SignIn<'a> {
    /// The player.
    pub player: PlayerId,
    /// Its token's hash.
    pub token_hash: &'a str,
    /// The label a new row gets.
    pub label: &'a str,
    /// Now, Unix ms.
    pub now_ms: i64,
    /// Most devices the player keeps (0: no cap).
    pub max_devices: usize,
    /// A device last used before this (Unix ms) has expired.
    pub expired_before_ms: Option<i64>,
}

/// Whether `id` has the shape of a device id (so a query is not sent for
/// anything else).
pub fn is_device_id(id: &str) -> bool {
    id.len() == DEVICE_ID_CHARS
        && id
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

const COLUMNS: &str = "token_hash, label, created_ms, last_used_ms";

impl Db {
    /// The device row of a token, if it has one.
    pub async fn device(&self, token_hash: &str) -> Result<Option<DeviceRow>, DbError> {
        let sql = format!("SELECT {COLUMNS} FROM player_tokens WHERE token_hash = $1");
        Ok(
            on_store!(self, s => sqlx::query_as(&sql).bind(token_hash).fetch_optional(&s.pool).await?),
        )
    }

    /// Records a device signing in: a device unused since before the
    /// expiry is revoked instead (`expired`); one without a row gets one
    /// (labelled `label`), and then the player keeps at most `max_devices`
    /// by revoking the least recently used others; a known one has its
    /// `last_used_ms` moved when it is at least [`TOUCH_EVERY_MS`] old.
    pub async fn touch_device(&self, sign_in: SignIn<'_>) -> Result<Touched, DbError> {
        let SignIn {
            player,
            token_hash,
            label,
            now_ms,
            max_devices,
            expired_before_ms,
        } = sign_in;
        let previous = self.device(token_hash).await?;
        let previous_use_ms = previous.as_ref().map(|d| d.last_used_ms);
        if let (Some(used), Some(cutoff)) = (previous_use_ms, expired_before_ms) {
            if used < cutoff {
                self.delete_device(player, token_hash).await?;
                return Ok(Touched {
                    previous_use_ms,
                    evicted: Vec::new(),
                    expired: true,
                });
            }
        }
        match previous_use_ms {
            None => {
                const INSERT: &str = "INSERT INTO player_tokens
                        (token_hash, player_id, label, created_ms, last_used_ms)
                    VALUES ($1, $2, $3, $4, $5)
                    ON CONFLICT (token_hash) DO NOTHING";
                on_store!(self, s => {
                    sqlx::query(INSERT)
                        .bind(token_hash)
                        .bind(player.0)
                        .bind(label)
                        .bind(now_ms)
                        .bind(now_ms)
                        .execute(&s.pool)
                        .await?;
                });
            }
            Some(used) if now_ms.saturating_sub(used) >= TOUCH_EVERY_MS => {
                const TOUCH: &str =
                    "UPDATE player_tokens SET last_used_ms = $1 WHERE token_hash = $2";
                on_store!(self, s => {
                    sqlx::query(TOUCH).bind(now_ms).bind(token_hash).execute(&s.pool).await?;
                });
            }
            Some(_) => {}
        }
        let evicted = if previous.is_none() && max_devices > 0 {
            self.evict_beyond(player, token_hash, max_devices).await?
        } else {
            Vec::new()
        };
        Ok(Touched {
            previous_use_ms,
            evicted,
            expired: false,
        })
    }

    /// Revokes the least recently used devices of `player` other than
    /// `keep` until at most `max` remain; their hashes.
    async fn evict_beyond(
        &self,
        player: PlayerId,
        keep: &str,
        max: usize,
    ) -> Result<Vec<String>, DbError> {
        const OTHERS: &str = "SELECT token_hash FROM player_tokens
            WHERE player_id = $1 AND token_hash <> $2
            ORDER BY last_used_ms DESC, created_ms DESC, token_hash";
        let others: Vec<(String,)> = on_store!(self, s =>
            sqlx::query_as(OTHERS).bind(player.0).bind(keep).fetch_all(&s.pool).await?);
        let mut evicted = Vec::new();
        for (hash,) in others.into_iter().skip(max.saturating_sub(1)) {
            self.delete_device(player, &hash).await?;
            evicted.push(hash);
        }
        Ok(evicted)
    }

    /// Deletes one device of `player`, and retires the player's first
    /// token when it is that device's.
    async fn delete_device(&self, player: PlayerId, token_hash: &str) -> Result<(), DbError> {
        const DELETE: &str = "DELETE FROM player_tokens WHERE player_id = $1 AND token_hash = $2";
        const RETIRE: &str =
            "UPDATE players SET token_hash = 'revoked:' || token_hash WHERE id = $1 AND token_hash = $2";
        on_store!(self, s => {
            let mut tx = s.pool.begin().await?;
            sqlx::query(DELETE).bind(player.0).bind(token_hash).execute(&mut *tx).await?;
            sqlx::query(RETIRE).bind(player.0).bind(token_hash).execute(&mut *tx).await?;
            tx.commit().await?;
        });
        Ok(())
    }

    /// The player's devices, oldest first.
    pub async fn devices(&self, player: PlayerId) -> Result<Vec<DeviceRow>, DbError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM player_tokens WHERE player_id = $1
             ORDER BY created_ms, token_hash"
        );
        Ok(on_store!(self, s => sqlx::query_as(&sql).bind(player.0).fetch_all(&s.pool).await?))
    }

    /// Revokes the device of `player` named `id`: its token hash, or `None`
    /// when the player has no such device.
    pub async fn revoke_device(
        &self,
        player: PlayerId,
        id: &str,
    ) -> Result<Option<String>, DbError> {
        if !is_device_id(id) {
            return Ok(None);
        }
        let found = self
            .devices(player)
            .await?
            .into_iter()
            .find(|d| d.id() == id);
        let Some(device) = found else {
            return Ok(None);
        };
        self.delete_device(player, &device.token_hash).await?;
        Ok(Some(device.token_hash))
    }

    /// Revokes every device unused since `cutoff_ms` (run at start); how
    /// many.
    pub async fn prune_devices(&self, cutoff_ms: i64) -> Result<u64, DbError> {
        const RETIRE: &str = "UPDATE players SET token_hash = 'revoked:' || token_hash
            WHERE token_hash IN
                (SELECT token_hash FROM player_tokens WHERE last_used_ms < $1)";
        const DELETE: &str = "DELETE FROM player_tokens WHERE last_used_ms < $1";
        let deleted = on_store!(self, s => {
            let mut tx = s.pool.begin().await?;
            sqlx::query(RETIRE).bind(cutoff_ms).execute(&mut *tx).await?;
            let done = sqlx::query(DELETE).bind(cutoff_ms).execute(&mut *tx).await?;
            tx.commit().await?;
            done.rows_affected()
        });
        Ok(deleted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_ids_are_sixteen_lower_hex_digits() {
        assert!(is_device_id("0123456789abcdef"));
        assert!(!is_device_id("0123456789ABCDEF"));
        assert!(!is_device_id("0123456789abcde"));
        assert!(!is_device_id("0123456789abcdeg"));
        let row = DeviceRow {
            token_hash: "ab".repeat(32),
            label: "x".into(),
            created_ms: 0,
            last_used_ms: 0,
        };
        assert_eq!(row.id(), "abababababababab");
    }
}
