//! What makes a room a party: reactions that float across every screen, and
//! the ready check before a rematch, so nobody is dealt a hand while they are
//! still looking at the podium.

use super::roster::take_credit;
use super::rounds::Phase;
use super::{
    Effects, Recipient, Room, RoomError, REACTION_BURST, REACTION_WINDOW_MS, READY_CHECK_MS,
    ROOM_REACTION_BURST, ROOM_REACTION_WINDOW_MS,
};
use crate::protocol::{PlayerId, ReadyCheckInfo, ServerMessage, REACTIONS};

impl Room {
    /// A member's reaction, relayed to the room. Only the fixed few (never
    /// text), a few per member every few seconds and a few more per room
    /// (whoever sends them: a crowd of 100 stays watchable); not kept in `recent`,
    /// since a reaction is only worth seeing as it happens.
    pub fn react(&mut self, player: PlayerId, emoji: &str, now: u64) -> Result<Effects, RoomError> {
        self.advance(now);
        let emoji = REACTIONS
            .iter()
            .find(|&&r| r == emoji)
            .ok_or(RoomError::UnknownReaction)?;
        let m = self.member_mut(player).ok_or(RoomError::NotInRoom)?;
        // The member's own limit first, so one flooder cannot spend the
        // room's.
        take_credit(
            &mut m.reaction_expiries,
            now,
            REACTION_BURST,
            REACTION_WINDOW_MS,
        )?;
        let name = m.name.clone();
        take_credit(
            &mut self.reaction_expiries,
            now,
            ROOM_REACTION_BURST,
            ROOM_REACTION_WINDOW_MS,
        )?;
        let msg = ServerMessage::Reaction {
            player,
            name,
            emoji: (*emoji).to_owned(),
        };
        let mut fx = std::mem::take(&mut self.pending);
        fx.reply(player, msg.clone());
        fx.send(Recipient::AllExcept(player), msg);
        Ok(fx)
    }

    /// A seated player is ready for the rematch; the match starts once every
    /// connected player is.
    pub fn ready(&mut self, player: PlayerId, now: u64) -> Result<Effects, RoomError> {
        self.advance(now);
        if !matches!(self.phase, Phase::ReadyCheck { .. }) {
            return Err(RoomError::WrongState("no rematch is waiting for players"));
        }
        let m = self.member_mut(player).ok_or(RoomError::NotInRoom)?;
        if m.spectator {
            return Err(RoomError::NotAPlayer("spectators do not play the rematch"));
        }
        let newly_ready = !m.ready;
        m.ready = true;
        let mut fx = std::mem::take(&mut self.pending);
        if newly_ready {
            let msg = ServerMessage::PlayerReady { player };
            fx.reply(player, msg.clone());
            fx.send(Recipient::AllExcept(player), msg);
            self.settle_ready_check(now, &mut fx);
        }
        Ok(fx)
    }

    /// Opens the ready check of a rematch; the host who asked is ready.
    pub(super) fn open_ready_check(&mut self, host: PlayerId, now: u64, fx: &mut Effects) {
        // Bots are always ready: nobody waits for a program to look up.
        for m in &mut self.members {
            m.ready = m.id == host || m.bot;
        }
        self.phase = Phase::ReadyCheck {
            until: now + READY_CHECK_MS,
        };
        let msg = ServerMessage::ReadyCheck {
            ms: READY_CHECK_MS,
            ready: self.ready_players(),
        };
        // The host's copy answers their `start`.
        fx.reply(host, msg.clone());
        fx.send(Recipient::AllExcept(host), msg);
        self.settle_ready_check(now, fx);
    }

    /// Starts the match if a ready check is open and every connected player
    /// is ready (after a `ready`, or after someone left or dropped).
    pub(super) fn settle_ready_check(&mut self, now: u64, fx: &mut Effects) {
        let open = matches!(self.phase, Phase::ReadyCheck { .. });
        let all_ready = self
            .members
            .iter()
            .filter(|m| !m.spectator && m.connected())
            .all(|m| m.ready);
        if open && all_ready {
            self.begin_match(None, now, fx);
        }
    }

    /// The open ready check as a snapshot shows it.
    pub(super) fn ready_check_info(&self, now: u64) -> Option<ReadyCheckInfo> {
        match self.phase {
            Phase::ReadyCheck { until } => Some(ReadyCheckInfo {
                ms: until.saturating_sub(now),
                ready: self.ready_players(),
            }),
            _ => None,
        }
    }

    fn ready_players(&self) -> Vec<PlayerId> {
        self.members
            .iter()
            .filter(|m| m.ready && !m.spectator)
            .map(|m| m.id)
            .collect()
    }
}
