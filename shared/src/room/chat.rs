//! Chat between members, with its length and flood limits, and nothing in
//! it that could act on another member's terminal.

use super::roster::take_credit;
use super::{Effects, Recipient, Room, RoomError, CHAT_BURST, CHAT_WINDOW_MS};
use crate::protocol::{PlayerId, ServerMessage, MAX_CHAT_LEN};

impl Room {
    /// A chat message to the room.
    pub fn chat(&mut self, player: PlayerId, text: &str, now: u64) -> Result<Effects, RoomError> {
        self.advance(now);
        let text = text.trim();
        if text.chars().count() > MAX_CHAT_LEN {
            return Err(RoomError::TooLong);
        }
        if text.is_empty() {
            return Err(RoomError::EmptyChat);
        }
        crate::text::check(text)?;
        let m = self.member_mut(player).ok_or(RoomError::NotInRoom)?;
        take_credit(&mut m.chat_expiries, now, CHAT_BURST, CHAT_WINDOW_MS)?;
        let msg = ServerMessage::Chat {
            from: player,
            name: m.name.clone(),
            text: text.to_owned(),
        };
        let mut fx = std::mem::take(&mut self.pending);
        self.remember(msg.clone());
        fx.send(Recipient::All, msg);
        Ok(fx)
    }
}
