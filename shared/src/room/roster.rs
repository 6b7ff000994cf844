//! Who is in the room: joining, leaving, being kicked, dropping and coming
//! back, the lock, and who hosts.

use std::collections::VecDeque;

use super::{Effects, Phase, Recipient, Room, RoomError, RoomEvent, SEAT_HOLD_MS};
use crate::protocol::{LeaveReason, PlayerId, ServerMessage};

/// Someone asking to join a room (or to open one, as its host).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Joiner {
    /// Their player id.
    pub id: PlayerId,
    /// Their name as the server stored it (already validated).
    pub name: String,
    /// Whether they said they are a bot (`hello.bot`): shown in the roster,
    /// and reported with the match so bots are never rated.
    pub bot: bool,
}

impl Joiner {
    /// A person.
    pub fn new(id: PlayerId, name: impl Into<String>) -> Self {
        Joiner {
            id,
            name: name.into(),
            bot: false,
        }
    }

    /// The same joiner, marked as a bot (or not).
    pub fn bot(self, bot: bool) -> Self {
        Joiner { bot, ..self }
    }
}

/// Someone in the room.
#[derive(Debug, Clone)]
pub(super) struct Member {
    pub(super) id: PlayerId,
    pub(super) name: String,
    /// Said it is a bot when it connected.
    pub(super) bot: bool,
    /// Spectators watch and chat but never score.
    pub(super) spectator: bool,
    /// If they are disconnected, when their seat is released
    /// ([`SEAT_HOLD_MS`] after they dropped). Kept as a
    /// deadline, like every time the room holds, so a saved room can be
    /// restored on any clock with its time left.
    pub(super) released_at: Option<u64>,
    /// Score in the current (or last) match.
    pub(super) score: i64,
    /// Total time from the deal of their right answers in the match (the
    /// `everyone` scoring's tiebreak).
    pub(super) solve_ms: u64,
    /// Real attempts at the hand in the current (or last) match
    /// ([`super::counts_as_attempt`]), so ratings and boards leave out
    /// players who never tried.
    pub(super) attempts: u32,
    /// First round of the current match they may answer: late joiners wait
    /// for the next deal.
    pub(super) eligible_from: u32,
    /// No answers accepted before this time (after a wrong one).
    pub(super) locked_until: u64,
    /// Answers judged wrong in the round being played (the room's screens
    /// show who has tried).
    pub(super) round_misses: u32,
    /// When each of their recent chat messages stops counting against the
    /// flood limit, oldest first.
    pub(super) chat_expiries: VecDeque<u64>,
    /// The same for their answers (not saved across restarts: a restarted
    /// room forgives them).
    pub(super) attempt_expiries: VecDeque<u64>,
    /// Said `ready` in the open ready check.
    pub(super) ready: bool,
    /// When each of their recent reactions stops counting against the
    /// reaction limit, oldest first.
    pub(super) reaction_expiries: VecDeque<u64>,
}

/// Counts one more message against a flood limit of `burst` messages per
/// `window_ms`, or refuses it. `expiries` are when the recent ones stop
/// counting, oldest first.
pub(super) fn take_credit(
    expiries: &mut VecDeque<u64>,
    now: u64,
    burst: usize,
    window_ms: u64,
) -> Result<(), RoomError> {
    while expiries.front().is_some_and(|&t| t <= now) {
        expiries.pop_front();
    }
    if expiries.len() >= burst {
        return Err(RoomError::RateLimited);
    }
    expiries.push_back(now + window_ms);
    Ok(())
}

impl Member {
    pub(super) fn new(joiner: Joiner, spectator: bool, eligible_from: u32) -> Self {
        Member {
            id: joiner.id,
            name: joiner.name,
            bot: joiner.bot,
            spectator,
            released_at: None,
            score: 0,
            solve_ms: 0,
            attempts: 0,
            eligible_from,
            locked_until: 0,
            round_misses: 0,
            chat_expiries: VecDeque::new(),
            attempt_expiries: VecDeque::new(),
            ready: false,
            reaction_expiries: VecDeque::new(),
        }
    }

    pub(super) fn connected(&self) -> bool {
        self.released_at.is_none()
    }
}

/// A player who left during the match: they still appear in its standings,
/// so leaving cannot dodge a loss, and get their score back if they return.
/// Kept as a saved room keeps them.
pub(super) use super::saved::SavedDeparted as Departed;

impl Room {
    /// `joiner` joins as a player or a spectator (or, if they still hold a
    /// seat, comes back to it).
    ///
    /// The joiner gets a full snapshot; everyone else gets one small
    /// `player_joined`, whatever the room's size, and adds the newcomer to
    /// the roster they hold (score 0, connected, `waiting` when a round is
    /// being played) — so a crowd of spectators arriving costs each member
    /// one message per arrival, not one snapshot of everyone.
    pub fn join(
        &mut self,
        joiner: Joiner,
        spectator: bool,
        now: u64,
    ) -> Result<Effects, RoomError> {
        self.advance(now);
        let player = joiner.id;
        if self.is_member(player) {
            return self.reconnect(player, now);
        }
        if self.banned.contains(&player) {
            return Err(RoomError::Banned);
        }
        // To a stranger a locked room does not exist: answering "locked"
        // would confirm a guessed code.
        if self.locked {
            return Err(RoomError::NotFound);
        }
        if spectator {
            let watching = self.members.len() as u32 - self.player_count();
            if watching >= self.limits.max_spectators {
                return Err(RoomError::TooManySpectators(self.limits.max_spectators));
            }
        } else if self.player_count() >= self.settings.max_players {
            return Err(RoomError::RoomFull(self.settings.max_players));
        }
        Ok(self.seat(joiner, spectator, now))
    }

    /// Seats `joiner`, who may join (the checks are the caller's): the
    /// others hear of them, they get the room's snapshot.
    pub(super) fn seat(&mut self, joiner: Joiner, spectator: bool, now: u64) -> Effects {
        let player = joiner.id;
        let eligible_from = match (self.phase, &self.round) {
            (Phase::Playing, Some(r)) => r.number + 1,
            _ => 0,
        };
        let bot = joiner.bot;
        let name = joiner.name.clone();
        let mut member = Member::new(joiner, spectator, eligible_from);
        // Someone who left this match and comes back gets their score back;
        // the others' rosters show 0 for a newcomer, so they get a snapshot.
        let mut returning = false;
        if let Some(i) = self.departed.iter().position(|d| d.id == player) {
            if !spectator {
                let departed = self.departed.remove(i);
                member.score = departed.score;
                member.attempts = departed.attempts;
                returning = departed.score != 0;
            }
        }
        self.members.push(member);
        self.vacated_at = None;
        // Someone arriving in a room that emptied takes it over.
        if !self.is_member(self.host) {
            if let Some(next) = self.successor() {
                self.host = next;
            }
        }
        let mut fx = std::mem::take(&mut self.pending);
        let msg = ServerMessage::PlayerJoined {
            player,
            name,
            spectator,
            bot,
        };
        self.remember(msg.clone());
        fx.send(Recipient::AllExcept(player), msg);
        self.snapshot_to(player, returning, now, &mut fx);
        fx
    }

    /// `player`'s connection dropped: they keep their seat and score for
    /// [`SEAT_HOLD_MS`]. The others' rosters show a
    /// seated player as away; a spectator's connection is nobody's business,
    /// so it costs the room nothing.
    pub fn disconnect(&mut self, player: PlayerId, now: u64) -> Effects {
        self.advance(now);
        let mut fx = std::mem::take(&mut self.pending);
        let Some(m) = self.member_mut(player) else {
            return fx;
        };
        if !m.connected() {
            return fx;
        }
        m.released_at = Some(now + SEAT_HOLD_MS);
        let spectator = m.spectator;
        if !self.members.iter().any(Member::connected) {
            self.vacated_at = Some(now);
        }
        if !spectator {
            self.broadcast_state(None, now, &mut fx);
        }
        self.settle_ready_check(now, &mut fx);
        fx
    }

    /// `player` is back (with their token) while holding a seat: they get a
    /// full snapshot, and, for a seated player, the others see them
    /// connected again.
    pub fn reconnect(&mut self, player: PlayerId, now: u64) -> Result<Effects, RoomError> {
        self.advance(now);
        let m = self.member_mut(player).ok_or(RoomError::NotInRoom)?;
        let was_away = !m.connected();
        m.released_at = None;
        let spectator = m.spectator;
        self.vacated_at = None;
        let mut fx = std::mem::take(&mut self.pending);
        self.snapshot_to(player, was_away && !spectator, now, &mut fx);
        Ok(fx)
    }

    /// `player` gets a full snapshot: with a fresh one for everyone when the
    /// room must see them again (`tell_room`), else alone.
    fn snapshot_to(&self, player: PlayerId, tell_room: bool, now: u64, fx: &mut Effects) {
        if tell_room {
            self.broadcast_state(Some(player), now, fx);
        } else {
            fx.reply(
                player,
                ServerMessage::RoomState(self.snapshot_for(player, now)),
            );
        }
    }

    /// `player` leaves for good.
    pub fn leave(&mut self, player: PlayerId, now: u64) -> Result<Effects, RoomError> {
        self.advance(now);
        if !self.is_member(player) {
            return Err(RoomError::NotInRoom);
        }
        let mut fx = std::mem::take(&mut self.pending);
        self.remove(player, LeaveReason::Left, now, &mut fx);
        Ok(fx)
    }

    /// Host only: removes `target`, who may not come back.
    pub fn kick(
        &mut self,
        host: PlayerId,
        target: PlayerId,
        now: u64,
    ) -> Result<Effects, RoomError> {
        self.host_acts_on(host, target, now)?;
        if target == host {
            return Err(RoomError::WrongState(
                "the host cannot kick themselves; use leave_room",
            ));
        }
        self.banned.insert(target);
        let mut fx = std::mem::take(&mut self.pending);
        self.remove(target, LeaveReason::Kicked, now, &mut fx);
        Ok(fx)
    }

    /// Host only: closes the room to new joiners (or opens it again). People
    /// holding a seat can always come back.
    pub fn lock(&mut self, host: PlayerId, locked: bool, now: u64) -> Result<Effects, RoomError> {
        self.host_acts(host, now)?;
        self.locked = locked;
        let mut fx = std::mem::take(&mut self.pending);
        self.broadcast_state(Some(host), now, &mut fx);
        Ok(fx)
    }

    /// Host only: hands the host role to another seated player.
    pub fn transfer_host(
        &mut self,
        host: PlayerId,
        target: PlayerId,
        now: u64,
    ) -> Result<Effects, RoomError> {
        let member = self.host_acts_on(host, target, now)?;
        if member.spectator {
            return Err(RoomError::NotAPlayer("a spectator cannot be the host"));
        }
        // A bot never starts a match or hands the role back: a room whose
        // host it was would be stuck for good.
        if member.bot {
            return Err(RoomError::NotAPlayer("a bot cannot be the host"));
        }
        self.host = target;
        let mut fx = std::mem::take(&mut self.pending);
        self.broadcast_state(Some(host), now, &mut fx);
        Ok(fx)
    }

    /// Removes a member, hands on the host role, and abandons a match with
    /// no players left.
    ///
    /// The others get one small `player_left` and drop the member from the
    /// roster they hold; only when that is not enough to redraw it (the host
    /// changed, or the match was abandoned) do they get a snapshot.
    pub(super) fn remove(
        &mut self,
        player: PlayerId,
        reason: LeaveReason,
        now: u64,
        fx: &mut Effects,
    ) {
        let Some(i) = self.members.iter().position(|m| m.id == player) else {
            return;
        };
        let m = self.members.remove(i);
        let in_match = !self.phase.between_matches();
        let played = self.round.as_ref().map_or(0, |r| r.number);
        if in_match && !m.spectator && m.eligible_from <= played.max(1) {
            self.departed.push(Departed {
                id: m.id,
                name: m.name.clone(),
                bot: m.bot,
                score: m.score,
                attempts: m.attempts,
            });
        }
        let msg = ServerMessage::PlayerLeft {
            player,
            name: m.name.clone(),
            reason,
        };
        self.remember(msg.clone());
        fx.send(Recipient::All, msg.clone());
        // `All` no longer reaches them: a leaver gets the notice as the reply
        // to `leave_room`, a kicked player as their notice.
        match reason {
            LeaveReason::Left => fx.reply(player, msg),
            LeaveReason::Kicked => fx.send(Recipient::Player(player), msg),
            LeaveReason::TimedOut => {}
        }
        fx.removed.push(player);
        self.close_if_everyone_solved(now, fx);
        if m.connected() && !self.members.iter().any(Member::connected) {
            self.vacated_at = Some(now);
        }
        let mut redraw = false;
        if self.host == player {
            if let Some(next) = self.successor() {
                self.host = next;
                redraw = true;
            }
        }
        if in_match && self.player_count() == 0 {
            self.phase = Phase::Lobby;
            self.round = None;
            self.departed.clear();
            fx.events.push(RoomEvent::MatchAbandoned);
            redraw = true;
        }
        if redraw {
            self.broadcast_state(None, now, fx);
        }
        self.settle_ready_check(now, fx);
    }

    /// Longest-seated connected player, else any player, else a spectator.
    pub(super) fn successor(&self) -> Option<PlayerId> {
        // People first: a bot is host only of a room with nobody else in it.
        let pick = |f: &dyn Fn(&Member) -> bool| {
            let person = self.members.iter().find(|m| !m.bot && f(m));
            person
                .or_else(|| self.members.iter().find(|m| f(m)))
                .map(|m| m.id)
        };
        pick(&|m| !m.spectator && m.connected())
            .or_else(|| pick(&|m| !m.spectator))
            .or_else(|| pick(&|m| m.connected()))
            .or_else(|| pick(&|_| true))
    }
}
