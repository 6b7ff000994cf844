//! Bots the host seats in the room and takes out again (`add_bot`,
//! `remove_bot`): only between matches, never more than [`MAX_BOTS`], each
//! taking a player's seat. Who the bot is (its id and name) comes from the
//! server; how it plays is the server's too (`crate::bot_pace`).

use super::{Effects, Phase, Room, RoomError};
use crate::protocol::{ErrorCode, LeaveReason, PlayerId, ServerMessage};
use crate::room::Joiner;

/// Most bots in one room: enough for a practice table or to fill a party,
/// few enough that people are never outnumbered by programs on a board of
/// eight.
pub const MAX_BOTS: u32 = 4;

impl Room {
    /// How many bots are seated.
    pub fn bot_count(&self) -> u32 {
        self.members.iter().filter(|m| m.bot).count() as u32
    }

    /// The number of the round being played (a hand out, no result yet).
    pub fn round_in_play(&self) -> Option<u32> {
        match (self.phase, &self.round) {
            (Phase::Playing, Some(r)) => Some(r.number),
            _ => None,
        }
    }

    /// Whether anyone but a bot is in the room (seated or watching): a room
    /// left to its bots closes.
    pub fn has_people(&self) -> bool {
        self.members.iter().any(|m| !m.bot)
    }

    /// Host only, between matches: seats `bot` (marked as a bot whatever it
    /// says) as a player, or answers the host with why not (as
    /// [`Room::handle`] does): the room has its [`MAX_BOTS`], every seat is
    /// taken. A bot the host once kicked may be added again; the room being
    /// locked does not matter: the host asked. `Err(why)`: the server has
    /// no bot to seat (`internal`, saying `why`).
    pub fn add_bot(&mut self, host: PlayerId, bot: Result<Joiner, &str>, now: u64) -> Effects {
        let added = match bot {
            Ok(bot) => self.try_add_bot(host, bot, now),
            Err(why) => {
                let mut fx = std::mem::take(&mut self.pending);
                fx.reply(host, ServerMessage::error(ErrorCode::Internal, why));
                return fx;
            }
        };
        added.unwrap_or_else(|e| {
            let mut fx = std::mem::take(&mut self.pending);
            fx.reply(host, e.to_message());
            fx
        })
    }

    fn try_add_bot(&mut self, host: PlayerId, bot: Joiner, now: u64) -> Result<Effects, RoomError> {
        self.host_acts(host, now)?;
        self.require_between_matches_for("bots join between matches")?;
        if self.is_member(bot.id) {
            return Err(RoomError::WrongState("that bot is already in the room"));
        }
        if self.bot_count() >= MAX_BOTS {
            return Err(RoomError::TooManyBots(MAX_BOTS));
        }
        if self.player_count() >= self.settings.max_players {
            return Err(RoomError::RoomFull(self.settings.max_players));
        }
        self.banned.remove(&bot.id);
        let id = bot.id;
        let fx = self.seat(bot.bot(true), false, now);
        // A bot is always ready for the rematch (see `open_ready_check`).
        if matches!(self.phase, Phase::ReadyCheck { .. }) {
            if let Some(m) = self.member_mut(id) {
                m.ready = true;
            }
        }
        Ok(fx)
    }

    /// Host only, between matches: takes the bot `target` out of the room
    /// (everyone hears it left). A person is refused: that is `kick`.
    pub fn remove_bot(
        &mut self,
        host: PlayerId,
        target: PlayerId,
        now: u64,
    ) -> Result<Effects, RoomError> {
        let member = self.host_acts_on(host, target, now)?;
        if !member.bot {
            return Err(RoomError::NotABot(target));
        }
        self.require_between_matches_for("bots leave between matches")?;
        let mut fx = std::mem::take(&mut self.pending);
        self.remove(target, LeaveReason::Left, now, &mut fx);
        Ok(fx)
    }

    fn require_between_matches_for(&self, why: &'static str) -> Result<(), RoomError> {
        self.require_between_matches()
            .map_err(|_| RoomError::WrongState(why))
    }
}
