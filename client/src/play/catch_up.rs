//! Which of a room's `recent` events to replay after a join or a resume.
//!
//! A snapshot carries the room's last events whatever the client already
//! saw. Replayed whole, a reconnect repeated the previous match, "Ben joined"
//! for someone who never left and our own "you left the room". So the
//! client keeps the room events it heard live ([`Heard`]) and replays only
//! what comes after them; a fresh join replays only the part of the room's
//! story that is still going on (this match, or the last one's standings
//! and what followed).

use krypto_core::protocol::{PlayerId, ServerMessage};

/// The most events remembered: more than a snapshot's `recent` holds, so
/// an overlap is always found when there is one.
const HEARD_LIMIT: usize = 64;

/// The room events the client received live in one room, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Heard {
    /// The room they happened in.
    pub code: String,
    /// The events, as received.
    pub events: Vec<ServerMessage>,
}

impl Heard {
    /// Notes `message` if it is a room event a snapshot would carry.
    pub fn note(&mut self, message: &ServerMessage) {
        if !is_story(message) {
            return;
        }
        self.events.push(message.clone());
        if self.events.len() > HEARD_LIMIT {
            let extra = self.events.len() - HEARD_LIMIT;
            self.events.drain(..extra);
        }
    }

    /// Starts over in room `code`, unless it is the room already heard.
    pub fn enter(&mut self, code: &str) {
        if self.code != code {
            self.code = code.to_owned();
            self.events.clear();
        }
    }
}

/// The events of a room's story (what `recent` holds), as opposed to
/// replies and state.
fn is_story(message: &ServerMessage) -> bool {
    matches!(
        message,
        ServerMessage::Chat { .. }
            | ServerMessage::PlayerJoined { .. }
            | ServerMessage::PlayerLeft { .. }
            | ServerMessage::MatchStarted { .. }
            | ServerMessage::RoundWon { .. }
            | ServerMessage::RoundTimedOut { .. }
            | ServerMessage::MatchOver { .. }
    )
}

/// What to replay of `recent` for `me`.
///
/// - Only what follows the last events we heard (all of it when none of
///   them is among `recent`: more happened than it holds).
/// - On a fresh join (`joined`), only this match's events when one is on
///   (`in_match`), else the last match's end (its standings) and what
///   followed it.
/// - Never our own arrivals and departures: we know we are here.
pub fn to_replay<'a>(
    recent: &'a [ServerMessage],
    heard: &[ServerMessage],
    me: Option<PlayerId>,
    joined: bool,
    in_match: bool,
) -> Vec<&'a ServerMessage> {
    let story: Vec<&ServerMessage> = recent.iter().filter(|m| is_story(m)).collect();
    let mut from = unheard_from(&story, heard);
    if joined {
        let boundary = story.iter().rposition(|m| {
            if in_match {
                matches!(m, ServerMessage::MatchStarted { .. })
            } else {
                matches!(m, ServerMessage::MatchOver { .. })
            }
        });
        let segment = boundary.unwrap_or(0);
        from = from.max(segment);
    }
    story[from..]
        .iter()
        .copied()
        .filter(|m| !is_own_move(m, me))
        .collect()
}

/// The index in `story` after the longest run of events that ends at the
/// last event heard: the first event not heard yet.
fn unheard_from(story: &[&ServerMessage], heard: &[ServerMessage]) -> usize {
    (1..=story.len())
        .rev()
        .find(|&end| {
            let overlap = end.min(heard.len());
            overlap > 0
                && story[end - overlap..end]
                    .iter()
                    .zip(&heard[heard.len() - overlap..])
                    .all(|(a, b)| same_event(a, b))
        })
        .unwrap_or(0)
}

/// Whether two events are the same one: the `match_over` we heard carries
/// the ratings the server adds after recording, the room's copy does not.
fn same_event(a: &ServerMessage, b: &ServerMessage) -> bool {
    match (a, b) {
        (
            ServerMessage::MatchOver { standings: x, .. },
            ServerMessage::MatchOver { standings: y, .. },
        ) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(s, t)| (s.player, s.score, s.rank) == (t.player, t.score, t.rank))
        }
        _ => a == b,
    }
}

fn is_own_move(message: &ServerMessage, me: Option<PlayerId>) -> bool {
    match message {
        ServerMessage::PlayerJoined { player, .. } | ServerMessage::PlayerLeft { player, .. } => {
            Some(*player) == me
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use krypto_core::protocol::LeaveReason;

    const ME: PlayerId = PlayerId(1);

    fn chat(text: &str) -> ServerMessage {
        ServerMessage::Chat {
            from: PlayerId(2),
            name: "Ben".into(),
            text: text.into(),
        }
    }

    fn started() -> ServerMessage {
        ServerMessage::MatchStarted {
            rounds_total: 3,
            settings: Default::default(),
            countdown_ms: 3000,
        }
    }

    fn over() -> ServerMessage {
        ServerMessage::MatchOver {
            standings: Vec::new(),
            match_id: None,
        }
    }

    fn texts(events: Vec<&ServerMessage>) -> Vec<String> {
        events
            .into_iter()
            .map(|m| match m {
                ServerMessage::Chat { text, .. } => text.clone(),
                ServerMessage::MatchStarted { .. } => "started".into(),
                ServerMessage::MatchOver { .. } => "over".into(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_resume_replays_only_what_came_after_the_last_event_heard() {
        let recent = [chat("a"), chat("b"), started(), chat("c"), chat("d")];
        let heard = [chat("x"), chat("a"), chat("b"), started()];
        assert_eq!(
            texts(to_replay(&recent, &heard, Some(ME), false, true)),
            ["c", "d"]
        );
        // Nothing missed: nothing replayed.
        assert!(to_replay(&recent, &recent, Some(ME), false, true).is_empty());
        // Everything heard fell out of `recent`: all of it is new.
        assert_eq!(
            to_replay(&recent, &[chat("z")], Some(ME), false, true).len(),
            5
        );
    }

    #[test]
    fn the_match_over_heard_with_ratings_is_the_one_recent_holds_without() {
        let standing = |rating| krypto_core::protocol::Standing {
            rating_before: rating,
            rating_after: rating,
            ..krypto_core::protocol::Standing::unrated(ME, "Ann", 2, 1)
        };
        let bare = ServerMessage::MatchOver {
            standings: vec![standing(None)],
            match_id: None,
        };
        let rated = ServerMessage::MatchOver {
            standings: vec![standing(Some(1500.0))],
            match_id: None,
        };
        let recent = [chat("a"), bare, chat("b")];
        assert_eq!(
            texts(to_replay(
                &recent,
                &[chat("a"), rated],
                Some(ME),
                false,
                false
            )),
            ["b"]
        );
    }

    #[test]
    fn repeated_events_match_the_longest_run() {
        // "gg" twice: the second one we heard ends at the second.
        let recent = [chat("gg"), chat("hi"), chat("gg"), chat("new")];
        let heard = [chat("hi"), chat("gg")];
        assert_eq!(
            texts(to_replay(&recent, &heard, Some(ME), false, false)),
            ["new"]
        );
    }

    #[test]
    fn a_join_replays_this_match_or_the_last_ones_end_and_what_followed() {
        let recent = [chat("old"), started(), chat("m1"), over(), chat("after")];
        assert_eq!(
            texts(to_replay(&recent, &[], Some(ME), true, false)),
            ["over", "after"]
        );
        let recent = [started(), chat("m1"), over(), started(), chat("m2")];
        assert_eq!(
            texts(to_replay(&recent, &[], Some(ME), true, true)),
            ["started", "m2"]
        );
    }

    #[test]
    fn our_own_arrivals_and_departures_are_never_replayed() {
        let left = ServerMessage::PlayerLeft {
            player: ME,
            name: "Ann".into(),
            reason: LeaveReason::Left,
        };
        let ben_left = ServerMessage::PlayerLeft {
            player: PlayerId(2),
            name: "Ben".into(),
            reason: LeaveReason::Left,
        };
        let recent = [left.clone(), chat("hi"), left, ben_left.clone()];
        assert_eq!(
            to_replay(&recent, &[], Some(ME), true, false),
            [&recent[1], &ben_left]
        );
    }
}
