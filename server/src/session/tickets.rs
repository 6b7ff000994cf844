//! `link_device`, and the ticket a `redirect` carries: single-use tickets
//! that sign another device (or a page on another node's origin) in
//! without the token travelling ([`crate::session::identity`]).

use krypto_core::protocol::{ErrorCode, PlayerId, ServerMessage};

use super::Session;
use crate::db::tickets::TicketKind;
use crate::session::identity;

impl Session {
    /// A ticket for `player` to take to another node with a `redirect`;
    /// `None` when it could not be stored (the redirect still goes out:
    /// clients holding their token need no ticket).
    pub(super) async fn handover_ticket(&self, player: PlayerId) -> Option<String> {
        let issued = identity::issue_ticket(
            &self.shared.db,
            player,
            TicketKind::Handover,
            std::time::SystemTime::now(),
            identity::HANDOVER_TICKET_TTL,
            self.shared.config.database_deadline,
        )
        .await;
        issued
            .map_err(|e| tracing::warn!(error = %e, "no handover ticket for a redirect"))
            .ok()
    }

    /// Answers `link_device`: a fresh device code for this player, with its
    /// QR when the page named its address.
    pub(super) async fn link_device(
        &self,
        id: Option<String>,
        player: PlayerId,
        base: Option<String>,
    ) {
        let ttl = identity::DEVICE_CODE_TTL;
        let issued = identity::issue_ticket(
            &self.shared.db,
            player,
            TicketKind::Device,
            std::time::SystemTime::now(),
            ttl,
            self.shared.config.database_deadline,
        )
        .await;
        match issued {
            Ok(code) => {
                let qr_svg = base.and_then(|b| super::qr::link_qr(&b, &code));
                self.reply(
                    id,
                    ServerMessage::DeviceCode {
                        code,
                        expires_ms: u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX),
                        qr_svg,
                    },
                );
            }
            Err(e) => {
                tracing::error!(error = %e, "device code not issued");
                self.error(id, ErrorCode::Internal, "could not make a code; try again");
            }
        }
    }
}
