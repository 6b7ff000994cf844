//! What a command or a tick produces: messages to send to whom, and events
//! for the server to record before it sends them.

use crate::protocol::{PlayerId, RoomSettings, RoundWin, ServerMessage, Standing, VerdictKind};

/// Who a message is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Recipient {
    /// One member (or the player whose request is being answered).
    Player(PlayerId),
    /// Every member of the room, players and spectators.
    All,
    /// Every member except one (who usually got a reply of their own).
    AllExcept(PlayerId),
}

/// A message to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    /// Who gets it.
    pub to: Recipient,
    /// What they get.
    pub message: ServerMessage,
    /// Whether it answers the request being handled: the server then puts
    /// the request's `id` on it.
    pub reply: bool,
}

impl Outgoing {
    pub(super) fn to(to: Recipient, message: ServerMessage) -> Self {
        Outgoing {
            to,
            message,
            reply: false,
        }
    }

    pub(super) fn reply(player: PlayerId, message: ServerMessage) -> Self {
        Outgoing {
            to: Recipient::Player(player),
            message,
            reply: true,
        }
    }
}

/// Something that happened in the room that the server records.
#[derive(Debug, Clone, PartialEq)]
pub enum RoomEvent {
    /// A match began with these seated players.
    MatchStarted {
        /// The settings it is played with.
        settings: RoomSettings,
        /// The players seated at the start, in seating order.
        players: Vec<PlayerId>,
    },
    /// A hand was dealt.
    RoundStarted {
        /// 1-based round number.
        round: u32,
        /// The value to make.
        objective: i64,
        /// The cards.
        cards: Vec<i64>,
    },
    /// A formula or a "no solution" claim was judged.
    Attempt {
        /// The round.
        round: u32,
        /// Who tried.
        player: PlayerId,
        /// The formula; `None` for a "no solution" claim.
        formula: Option<String>,
        /// Whether it won the round.
        accepted: bool,
        /// Why it was refused.
        error: Option<VerdictKind>,
        /// Time since the deal.
        elapsed_ms: u64,
    },
    /// Someone won a round.
    RoundWon(RoundWin),
    /// A round ran out of time.
    RoundTimedOut {
        /// The round.
        round: u32,
        /// The solution revealed, if any.
        solution: Option<String>,
        /// How many distinct solutions the hand had.
        solutions: u64,
    },
    /// The match ended normally.
    MatchFinished(MatchResult),
    /// Every player left during the match; it ends without a result.
    MatchAbandoned,
}

/// The outcome of a finished match, for the database and the ratings.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchResult {
    /// The settings it was played with.
    pub settings: RoomSettings,
    /// Rounds actually played (fewer than `settings.rounds` when someone
    /// reached the target score).
    pub rounds_played: u32,
    /// Final standings, best first; ties share a rank. Players who left
    /// during the match are included with the score they had.
    pub standings: Vec<Standing>,
    /// What the ratings need to know of each player in `standings`, in the
    /// same order: whether they are a bot and whether they tried at all.
    pub entrants: Vec<Entrant>,
}

/// A player of a finished match, as the ratings see them: a match is rated
/// only for people (not bots) who made at least one attempt, so a puppet
/// account that never answers cannot feed its farmer points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entrant {
    /// Who.
    pub player: PlayerId,
    /// Said it is a bot when it connected.
    pub bot: bool,
    /// Real attempts at the hand in this match ([`super::counts_as_attempt`]):
    /// complete formulas over the hand's cards, right or wrong (locked out
    /// and too late included), and right "no solution" claims.
    pub attempts: u32,
}

/// What a command or a tick produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Effects {
    /// Messages to send, in order.
    pub messages: Vec<Outgoing>,
    /// Events to record (before sending the messages).
    pub events: Vec<RoomEvent>,
    /// Players no longer in the room.
    pub removed: Vec<PlayerId>,
}

impl Effects {
    pub(super) fn send(&mut self, to: Recipient, message: ServerMessage) {
        self.messages.push(Outgoing::to(to, message));
    }

    pub(super) fn reply(&mut self, player: PlayerId, message: ServerMessage) {
        self.messages.push(Outgoing::reply(player, message));
    }

    /// Whether there is nothing to send or record.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty() && self.events.is_empty() && self.removed.is_empty()
    }

    /// Puts the recorded match's id on the `match_over` message, if any
    /// (the room mints no ids; the server records the match under one).
    pub fn set_match_id(&mut self, id: &str) {
        for o in &mut self.messages {
            if let ServerMessage::MatchOver { match_id, .. } = &mut o.message {
                *match_id = Some(id.to_owned());
            }
        }
    }

    /// The `match_over` message, if any, so the server can add ratings.
    pub fn match_over_mut(&mut self) -> Option<&mut Vec<Standing>> {
        self.messages.iter_mut().find_map(|o| match &mut o.message {
            ServerMessage::MatchOver { standings, .. } => Some(standings),
            _ => None,
        })
    }
}
