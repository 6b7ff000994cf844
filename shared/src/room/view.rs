//! What the room looks like from outside: queries for the server, the lobby
//! listing, and the snapshot a member redraws from.

use super::{Effects, Phase, Recipient, Room};
use crate::protocol::{
    PlayerId, PlayerInfo, RoomPhase, RoomSettings, RoomSnapshot, RoomSummary, RoundInfo,
    RoundMisses, ServerMessage,
};

impl Room {
    /// The room's code.
    pub fn code(&self) -> &str {
        &self.code
    }

    /// Current settings.
    pub fn settings(&self) -> &RoomSettings {
        &self.settings
    }

    /// The host's id.
    pub fn host(&self) -> PlayerId {
        self.host
    }

    /// Whether new joiners are refused.
    pub fn is_locked(&self) -> bool {
        self.locked
    }

    /// What the room is doing.
    pub fn phase(&self) -> RoomPhase {
        match self.phase {
            Phase::Lobby => RoomPhase::Lobby,
            Phase::Countdown { .. } => RoomPhase::Countdown,
            Phase::Playing => RoomPhase::Playing,
            Phase::BetweenRounds { .. } => RoomPhase::BetweenRounds,
            // A ready check is the podium still up, with `ready_check` set.
            Phase::Finished | Phase::ReadyCheck { .. } => RoomPhase::Finished,
        }
    }

    /// Whether `player` is in the room (seated, spectating, or disconnected
    /// but still holding a seat).
    pub fn is_member(&self, player: PlayerId) -> bool {
        self.member(player).is_some()
    }

    /// Every member's id, in seating order.
    pub fn members(&self) -> Vec<PlayerId> {
        self.members.iter().map(|m| m.id).collect()
    }

    /// Number of seated players (not spectators), connected or not.
    pub fn player_count(&self) -> u32 {
        self.members.iter().filter(|m| !m.spectator).count() as u32
    }

    /// Since when nobody has been connected to the room (every member left
    /// or dropped), in room time; `None` while someone is connected. The
    /// server closes a room vacant for its grace period: the held seats of
    /// a room nobody is in serve no one.
    pub fn vacant_since(&self) -> Option<u64> {
        self.vacated_at
    }

    /// The lobby listing entry.
    pub fn summary(&self) -> RoomSummary {
        RoomSummary {
            code: self.code.clone(),
            host: self
                .member(self.host)
                .map(|m| m.name.clone())
                .unwrap_or_default(),
            players: self.player_count(),
            max_players: self.settings.max_players,
            state: self.phase(),
            settings: self.settings.clone(),
        }
    }

    /// The full picture of the room as `viewer` sees it.
    pub fn snapshot_for(&self, viewer: PlayerId, now: u64) -> RoomSnapshot {
        let round_no = self.round.as_ref().map_or(0, |r| r.number);
        let players = self
            .members
            .iter()
            .map(|m| PlayerInfo {
                id: m.id,
                name: m.name.clone(),
                score: m.score,
                connected: m.connected(),
                spectator: m.spectator,
                waiting: !m.spectator && self.phase == Phase::Playing && m.eligible_from > round_no,
                bot: m.bot,
            })
            .collect();
        let round = self.round.as_ref().map(|r| {
            let live = self.phase == Phase::Playing && !r.over;
            let locked_out_ms = self
                .member(viewer)
                .map(|m| m.locked_until.saturating_sub(now))
                .filter(|&ms| live && ms > 0);
            RoundInfo {
                number: r.number,
                objective: r.deal.objective,
                cards: r.deal.hand.clone(),
                remaining_ms: if live {
                    r.deadline.saturating_sub(now)
                } else {
                    0
                },
                duration_ms: r.duration_ms,
                locked_out_ms,
                misses: self
                    .members
                    .iter()
                    .filter(|m| live && m.round_misses > 0)
                    .map(|m| RoundMisses {
                        player: m.id,
                        count: m.round_misses,
                        locked_out_ms: Some(m.locked_until.saturating_sub(now))
                            .filter(|&ms| ms > 0),
                    })
                    .collect(),
            }
        });
        let next_ms = match self.phase {
            Phase::Countdown { until } | Phase::BetweenRounds { until } => {
                Some(until.saturating_sub(now))
            }
            _ => None,
        };
        RoomSnapshot {
            code: self.code.clone(),
            host: self.host,
            settings: self.settings.clone(),
            state: self.phase(),
            locked: self.locked,
            players,
            round,
            rounds_total: self.settings.rounds,
            next_ms,
            recent: self.recent.iter().cloned().collect(),
            ready_check: self.ready_check_info(now),
        }
    }

    /// Sends every connected member their own snapshot (they differ only in
    /// the viewer's lockout); the one for `replying_to` is marked a reply.
    pub(super) fn broadcast_state(
        &self,
        replying_to: Option<PlayerId>,
        now: u64,
        fx: &mut Effects,
    ) {
        for m in self.members.iter().filter(|m| m.connected()) {
            let msg = ServerMessage::RoomState(self.snapshot_for(m.id, now));
            if Some(m.id) == replying_to {
                fx.reply(m.id, msg);
            } else {
                fx.send(Recipient::Player(m.id), msg);
            }
        }
    }
}
