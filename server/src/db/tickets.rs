//! Tickets: signing a device in without the long-lived token travelling
//! (migration `0010_tickets.sql`); the token a ticket gives is a device
//! ([`super::devices`]).
//!
//! The SQL is the same on both backends; times are passed in (Unix
//! milliseconds), so expiry is decided by the caller's clock and tested
//! without waiting.

use krypto_core::protocol::PlayerId;

use super::{on_store, Db, DbError, PlayerRow};

/// What a ticket is for; each kind is exchanged only as itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TicketKind {
    /// The short code a signed-in device shows for another device.
    Device,
    /// Given with a `redirect`, exchanged on the room's new node.
    Handover,
}

impl TicketKind {
    fn as_str(self) -> &'static str {
        match self {
            TicketKind::Device => "device",
            TicketKind::Handover => "handover",
        }
    }
}

impl Db {
    /// Stores a ticket for `player`, and drops that player's expired
    /// tickets and (for a device code) the older codes: one code is live per
    /// player at a time.
    pub async fn insert_ticket(
        &self,
        ticket_hash: &str,
        player: PlayerId,
        kind: TicketKind,
        now_ms: i64,
        expires_ms: i64,
    ) -> Result<(), DbError> {
        const PRUNE: &str = "DELETE FROM player_tickets
                             WHERE player_id = $1 AND (expires_ms <= $2 OR kind = $3)";
        const INSERT: &str = "INSERT INTO player_tickets (ticket_hash, player_id, kind, expires_ms)
                              VALUES ($1, $2, $3, $4)";
        // Handover tickets are not pruned by kind: a member redirected twice
        // in quick succession may still be using the first.
        let replaced = match kind {
            TicketKind::Device => TicketKind::Device.as_str(),
            TicketKind::Handover => "",
        };
        on_store!(self, s => {
            let mut tx = s.pool.begin().await?;
            sqlx::query(PRUNE).bind(player.0).bind(now_ms).bind(replaced).execute(&mut *tx).await?;
            sqlx::query(INSERT)
                .bind(ticket_hash)
                .bind(player.0)
                .bind(kind.as_str())
                .bind(expires_ms)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
        });
        Ok(())
    }

    /// Takes (deletes) the ticket: its player when it was a live ticket of
    /// `kind`, else `None`. Only one taker can win it.
    pub async fn take_ticket(
        &self,
        ticket_hash: &str,
        kind: TicketKind,
        now_ms: i64,
    ) -> Result<Option<PlayerRow>, DbError> {
        const TAKE: &str = "DELETE FROM player_tickets WHERE ticket_hash = $1
                            RETURNING player_id, kind, expires_ms";
        const PLAYER: &str = "SELECT id, name, name_key, bot FROM players WHERE id = $1";
        let taken: Option<(i64, String, i64)> = on_store!(self, s =>
            sqlx::query_as(TAKE).bind(ticket_hash).fetch_optional(&s.pool).await?);
        let Some((player, taken_kind, expires_ms)) = taken else {
            return Ok(None);
        };
        if taken_kind != kind.as_str() || expires_ms <= now_ms {
            return Ok(None);
        }
        Ok(on_store!(self, s => sqlx::query_as(PLAYER).bind(player).fetch_optional(&s.pool).await?))
    }
}
